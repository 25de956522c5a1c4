/**
 * `receipts` and `reaction`, sent by the controller, and `reaction` received from the user (vs-agent's model; its NestJS client POSTs a
 * `receipts` message for every message it receives). Each entry names a message the user sent by
 * its id (the `id` of the received envelope), as `message_id` (vs-agent's wire name) or
 * `messageId`, exactly one of them. On the wire: 2060.io receipts and reactions protocols.
 */
import { z } from 'zod'
import { AnyTimestamp, boundedName, MessageEnvelopeBase, SendMessageBase } from './common.ts'

/** Fields naming the message an entry is about (either name) and when (now when omitted). */
const reference = { messageId: boundedName(256).optional(), message_id: boundedName(256).optional(), timestamp: AnyTimestamp.optional() }

/** Refinement: exactly one of `messageId` and `message_id`. */
function oneMessageId(entry: { messageId?: string; message_id?: string }, context: z.RefinementCtx) {
  if ((entry.messageId === undefined) === (entry.message_id === undefined)) {
    context.addIssue({ code: 'custom', path: ['messageId'], message: 'give the message id as messageId or message_id, exactly one' })
  }
}

/** Receipt states of the 2060.io receipts protocol. */
export const ReceiptStateName = z.enum(['created', 'submitted', 'received', 'viewed', 'deleted'])

/** One receipt: the message, its state for the controller's side, and when (now when omitted). */
export const Receipt = z.strictObject({ ...reference, state: ReceiptStateName }).superRefine(oneMessageId)
export type Receipt = z.infer<typeof Receipt>

export const ReceiptsMessageBody = SendMessageBase.extend({
  type: z.literal('receipts'),
  receipts: z.array(Receipt).min(1).max(100),
})
export type ReceiptsMessageBody = z.infer<typeof ReceiptsMessageBody>

/** One reaction: an emoji added (`react`) to or removed (`unreact`) from the message. */
export const Reaction = z
  .strictObject({ ...reference, emoji: z.string().min(1).max(64), action: z.enum(['react', 'unreact']) })
  .superRefine(oneMessageId)
export type Reaction = z.infer<typeof Reaction>

export const ReactionMessageBody = SendMessageBase.extend({
  type: z.literal('reaction'),
  reactions: z.array(Reaction).min(1).max(100),
})
export type ReactionMessageBody = z.infer<typeof ReactionMessageBody>

/** The date an entry's `timestamp` stands for (Unix seconds or ISO 8601), or undefined. */
export function timestampDate(timestamp: string | number | undefined): Date | undefined {
  if (timestamp === undefined) return undefined
  return typeof timestamp === 'number' ? new Date(timestamp * 1000) : new Date(timestamp)
}

/** A reaction the user sent (inside `message-received`): `messageId` names the message reacted to; `timestamp` Unix seconds. */
export const ReceivedReaction = z.object({
  messageId: z.string(),
  emoji: z.string(),
  action: z.enum(['react', 'unreact']),
  timestamp: z.number().int(),
})

/** `reaction` received from the user (2060.io `message-reactions`). */
export const ReactionMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('reaction'),
  reactions: z.array(ReceivedReaction),
})
export type ReactionMessageEnvelope = z.infer<typeof ReactionMessageEnvelope>
