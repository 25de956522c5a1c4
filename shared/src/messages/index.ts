/**
 * Messages between controller and user, as the spec's "Message" and "Message envelope" tables
 * define them (agent interface spec, "Message"). One file per message type (or per
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
import {
  ContextualMenuRequestMessageEnvelope,
  ContextualMenuSelectMessageEnvelope,
  ContextualMenuUpdateMessageBody,
} from './contextual-menu.ts'
import {
  CredentialIssuanceMessageBody,
  CredentialReceptionEnvelope,
  CredentialRequestEnvelope,
  CredentialRequestMessageBody,
} from './credentials.ts'
import { InvitationMessageBody } from './invitation.ts'
import { MediaMessageBody, MediaMessageEnvelope } from './media.ts'
import { MenuDisplayMessageBody, MenuSelectMessageEnvelope } from './menu.ts'
import {
  EMrtdDataRequestMessageBody,
  EMrtdDataSubmitMessageEnvelope,
  MrzDataRequestMessageBody,
  MrzDataSubmitMessageEnvelope,
} from './mrtd.ts'
import { ProfileMessageBody, ProfileMessageEnvelope } from './profile.ts'
import { ReactionMessageBody, ReactionMessageEnvelope, ReceiptsMessageBody } from './receipts.ts'
import { IdentityProofRequestMessageBody, IdentityProofResultMessageBody, IdentityProofSubmitEnvelope } from './proofs.ts'
import { TerminateConnectionMessageBody, TerminateConnectionMessageEnvelope } from './terminate-connection.ts'
import { TextMessageBody, TextMessageEnvelope } from './text.ts'

export * from './calls.ts'
export * from './common.ts'
export * from './contextual-menu.ts'
export * from './credentials.ts'
export * from './invitation.ts'
export * from './media.ts'
export * from './menu.ts'
export * from './mrtd.ts'
export * from './profile.ts'
export * from './proofs.ts'
export * from './receipts.ts'
export * from './terminate-connection.ts'
export * from './text.ts'

const sendMessageBodies = [
  TextMessageBody,
  MediaMessageBody,
  ProfileMessageBody,
  MenuDisplayMessageBody,
  ContextualMenuUpdateMessageBody,
  TerminateConnectionMessageBody,
  CredentialIssuanceMessageBody,
  CredentialRequestMessageBody,
  IdentityProofRequestMessageBody,
  IdentityProofResultMessageBody,
  InvitationMessageBody,
  CallOfferMessageBody,
  CallAcceptMessageBody,
  CallRejectMessageBody,
  CallEndMessageBody,
  MrzDataRequestMessageBody,
  EMrtdDataRequestMessageBody,
  ReceiptsMessageBody,
  ReactionMessageBody,
] as const

/** The `type` values `POST /v1/message` accepts. */
export const SEND_MESSAGE_TYPES = sendMessageBodies.map((body) => body.shape.type.value)

/**
 * Body of `POST /v1/message`: one entry per message type the controller can send. An unknown or
 * missing `type` is one issue at `type` that lists the known types.
 */
export const SendMessageBody = z.discriminatedUnion('type', sendMessageBodies, {
  error: (issue) =>
    issue.code === 'invalid_union' ? `missing or unknown message type; expected one of: ${SEND_MESSAGE_TYPES.join(', ')}` : undefined,
})
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
  MenuSelectMessageEnvelope,
  ContextualMenuSelectMessageEnvelope,
  ContextualMenuRequestMessageEnvelope,
  TerminateConnectionMessageEnvelope,
  CredentialReceptionEnvelope,
  CredentialRequestEnvelope,
  IdentityProofSubmitEnvelope,
  CallOfferMessageEnvelope,
  CallAcceptMessageEnvelope,
  CallRejectMessageEnvelope,
  CallEndMessageEnvelope,
  MrzDataSubmitMessageEnvelope,
  EMrtdDataSubmitMessageEnvelope,
  ReactionMessageEnvelope,
])
export type MessageEnvelope = z.infer<typeof MessageEnvelope>
