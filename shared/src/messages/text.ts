/** `text`: plain chat message, both directions (Aries RFC 0095 basic message on the wire). */
import { z } from 'zod'
import { MessageEnvelopeBase, SendMessageBase } from './common.ts'

/**
 * The longest text Parley carries, in UTF-16 code units (JavaScript string length), both ways:
 * the admin API and the tunnel refuse a longer `text` to send (400), and agent-node drops a
 * longer basic message from a wallet with a warning instead of reporting it. At most 4 UTF-8
 * bytes a unit, a text event stays far below `MAX_EVENT_BYTES` (`tunnel/frames.ts`) and the
 * conversation Durable Object's 2 MB row limit.
 */
export const MAX_TEXT_CHARS = 65_536

/** `type: text` sent by the controller. */
export const TextMessageBody = SendMessageBase.extend({
  type: z.literal('text'),
  content: z.string().min(1).max(MAX_TEXT_CHARS),
})
export type TextMessageBody = z.infer<typeof TextMessageBody>

/** `type: text` received from the user. */
export const TextMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('text'),
  content: z.string(),
})
export type TextMessageEnvelope = z.infer<typeof TextMessageEnvelope>
