/**
 * `terminate-connection`, both directions: ends the DIDComm connection with a DID Rotate 1.0
 * `hangup` (Aries RFC 0794), as 2060.io's vs-agent does. Afterwards the connection reports state
 * `terminated` and takes no more messages.
 */
import { z } from 'zod'
import { MessageEnvelopeBase, SendMessageBase } from './common.ts'

/** `type: terminate-connection` sent by the controller: no fields besides the connection. */
export const TerminateConnectionMessageBody = SendMessageBase.extend({
  type: z.literal('terminate-connection'),
})
export type TerminateConnectionMessageBody = z.infer<typeof TerminateConnectionMessageBody>

/** `type: terminate-connection` received: the user's wallet hung up. */
export const TerminateConnectionMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('terminate-connection'),
})
export type TerminateConnectionMessageEnvelope = z.infer<typeof TerminateConnectionMessageEnvelope>
