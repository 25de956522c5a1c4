/** `text`: plain chat message, both directions (Aries RFC 0095 basic message on the wire). */
import { z } from 'zod'
import { MessageEnvelopeBase, SendMessageBase } from './common.ts'

/** `type: text` sent by the controller. */
export const TextMessageBody = SendMessageBase.extend({
  type: z.literal('text'),
  content: z.string().min(1).max(65_536),
})
export type TextMessageBody = z.infer<typeof TextMessageBody>

/** `type: text` received from the user. */
export const TextMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('text'),
  content: z.string(),
})
export type TextMessageEnvelope = z.infer<typeof TextMessageEnvelope>
