/**
 * Messages between controller and user, as the spec's "Message" and "Message envelope" tables
 * define them (../shared/spec/agent-interface-and-events.md). One file per message type (or per
 * protocol carrying several types) holds its `POST /v1/message` body schema and/or its received
 * envelope schema; the two unions below list them all. A new type is one new file and one line in
 * each union it belongs to.
 */
import { z } from 'zod'
import {
  CallAcceptMessageBody,
  CallAcceptMessageEnvelope,
  CallEndMessageBody,
  CallEndMessageEnvelope,
  CallOfferMessageBody,
  CallOfferMessageEnvelope,
  CallRejectMessageBody,
  CallRejectMessageEnvelope,
} from './calls.ts'
import { MediaMessageBody, MediaMessageEnvelope } from './media.ts'
import { EMrtdDataRequestMessageBody, EMrtdDataSubmitMessageEnvelope, MrzDataRequestMessageBody, MrzDataSubmitMessageEnvelope } from './mrtd.ts'
import { ProfileMessageBody, ProfileMessageEnvelope } from './profile.ts'
import { TextMessageBody, TextMessageEnvelope } from './text.ts'

export * from './calls.ts'
export * from './common.ts'
export * from './media.ts'
export * from './mrtd.ts'
export * from './profile.ts'
export * from './text.ts'

/** Body of `POST /v1/message`: one entry per message type the controller can send. */
export const SendMessageBody = z.discriminatedUnion('type', [
  TextMessageBody,
  MediaMessageBody,
  ProfileMessageBody,
  CallOfferMessageBody,
  CallAcceptMessageBody,
  CallRejectMessageBody,
  CallEndMessageBody,
  MrzDataRequestMessageBody,
  EMrtdDataRequestMessageBody,
])
export type SendMessageBody = z.infer<typeof SendMessageBody>
export type SendMessageType = SendMessageBody['type']

/** Response of `POST /v1/message`: the id of the queued message. */
export const SendMessageResult = z.object({ id: z.uuid() })
export type SendMessageResult = z.infer<typeof SendMessageResult>

/** Envelope of a message received from a peer (inside `message-received`): one entry per type a user can send. */
export const MessageEnvelope = z.discriminatedUnion('type', [
  TextMessageEnvelope,
  MediaMessageEnvelope,
  ProfileMessageEnvelope,
  CallOfferMessageEnvelope,
  CallAcceptMessageEnvelope,
  CallRejectMessageEnvelope,
  CallEndMessageEnvelope,
  MrzDataSubmitMessageEnvelope,
  EMrtdDataSubmitMessageEnvelope,
])
export type MessageEnvelope = z.infer<typeof MessageEnvelope>
