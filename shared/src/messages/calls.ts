/**
 * `call-offer`, `call-accept`, `call-reject`, `call-end`: voice/video call signalling, both
 * directions; 2060.io's calls 1.0 protocol on the wire. `parameters` is the WebRTC signalling
 * payload (for example the SFU room URL and peer id), passed through untouched. A call is one
 * DIDComm thread: accept, reject and end carry the offer's id as `threadId`.
 */
import { z } from 'zod'
import { DidCommThreadId, MessageEnvelopeBase, SendMessageBase } from './common.ts'

/** The call's signalling payload, opaque to Parley. */
export const CallParameters = z.record(z.string(), z.unknown())

/** Kind of call offered. */
export const CallType = z.enum(['audio', 'video', 'service'])

const offerFields = {
  /** `service` (the default) is a call to a service agent. */
  callType: CallType.optional(),
  /** ISO 8601 date-time after which the offer lapses. */
  offerExpirationTime: z.iso.datetime({ offset: true }).optional(),
  /** ISO 8601 date-time the call starts. */
  offerStartTime: z.iso.datetime({ offset: true }).optional(),
  description: z.string().optional(),
  parameters: CallParameters,
}

/** The offer being answered: the `id` of the received `call-offer` (or of the one sent). */
const CallThread = { threadId: DidCommThreadId }

export const CallOfferMessageBody = SendMessageBase.extend({ type: z.literal('call-offer'), ...offerFields })
export const CallAcceptMessageBody = SendMessageBase.extend({ type: z.literal('call-accept'), ...CallThread, parameters: CallParameters })
export const CallRejectMessageBody = SendMessageBase.extend({ type: z.literal('call-reject'), ...CallThread })
export const CallEndMessageBody = SendMessageBase.extend({ type: z.literal('call-end'), ...CallThread })
export type CallOfferMessageBody = z.infer<typeof CallOfferMessageBody>
export type CallAcceptMessageBody = z.infer<typeof CallAcceptMessageBody>
export type CallRejectMessageBody = z.infer<typeof CallRejectMessageBody>
export type CallEndMessageBody = z.infer<typeof CallEndMessageBody>

export const CallOfferMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('call-offer'),
  callType: z.string(),
  offerExpirationTime: z.string().optional(),
  offerStartTime: z.string().optional(),
  description: z.string().optional(),
  parameters: CallParameters,
})
export const CallAcceptMessageEnvelope = MessageEnvelopeBase.extend({ type: z.literal('call-accept'), parameters: CallParameters })
export const CallRejectMessageEnvelope = MessageEnvelopeBase.extend({ type: z.literal('call-reject') })
export const CallEndMessageEnvelope = MessageEnvelopeBase.extend({ type: z.literal('call-end') })
export type CallOfferMessageEnvelope = z.infer<typeof CallOfferMessageEnvelope>
export type CallAcceptMessageEnvelope = z.infer<typeof CallAcceptMessageEnvelope>
export type CallRejectMessageEnvelope = z.infer<typeof CallRejectMessageEnvelope>
export type CallEndMessageEnvelope = z.infer<typeof CallEndMessageEnvelope>
