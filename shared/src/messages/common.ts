/**
 * Fields every message shares, in both directions (agent interface spec,
 * "Message" and "Message envelope"). Each message type's file extends these.
 */
import { z } from 'zod'

/** A DIDComm thread id as Credo accepts it (Aries RFC 0008 message ids): a message id, or a DID. */
export const DidCommThreadId = z.string().regex(/^([-_./A-Za-z0-9]{8,64}|did:[a-z0-9]+:\S+)$/, '8-64 characters of A-Za-z0-9-_./, or a DID')

/** Fields of every `POST /v1/message` body: the target connection and an optional thread to reply in. */
export const SendMessageBase = z.object({
  connectionId: z.uuid(),
  /**
   * Thread this message belongs to (for example the `id` of the received message it answers).
   * DIDComm peers (Credo) refuse thread ids outside 8-64 of `A-Za-z0-9-_./`, or a DID.
   */
  threadId: DidCommThreadId.optional(),
})

/**
 * Fields of every received-message envelope (inside `message-received`). `id` is the DIDComm
 * message id, `timestamp` Unix seconds, `threadId` the DIDComm thread or null.
 */
export const MessageEnvelopeBase = z.object({
  id: z.string(),
  connectionId: z.uuid(),
  timestamp: z.number().int(),
  threadId: z.string().nullable(),
})

/**
 * Refinement for an array of objects whose `key` must be unique: each repeat is an issue at
 * `<index>.<key>`, so a 400 names the exact item. `why` says what relies on uniqueness.
 */
export function uniqueBy<K extends string>(key: K, why: string) {
  return (items: Array<Record<K, string>>, ctx: z.RefinementCtx) => {
    const seen = new Set<string>()
    items.forEach((item, index) => {
      if (seen.has(item[key])) ctx.addIssue({ code: 'custom', path: [index, key], message: `duplicate ${key} '${item[key]}' (${why})` })
      seen.add(item[key])
    })
  }
}
