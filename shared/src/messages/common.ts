/**
 * Fields every message shares, in both directions (agent interface spec,
 * "Message" and "Message envelope"). Each message type's file extends these.
 */
import { z } from 'zod'

/** Longest DID a thread id may be (a did:webvh with its SCID and a long host fits easily). */
const MAX_DID_LENGTH = 512

/** A DIDComm thread id as Credo accepts it (Aries RFC 0008 message ids): a message id, or a DID (at most 512 characters). */
export const DidCommThreadId = z
  .string()
  .max(MAX_DID_LENGTH)
  .regex(/^([-_./A-Za-z0-9]{8,64}|did:[a-z0-9]+:\S+)$/, '8-64 characters of A-Za-z0-9-_./, or a DID')

/** Whether `value` is free of NUL characters (they truncate strings in C libraries and logs). */
const withoutNul = (value: string) => !value.includes('\0')

/**
 * A name or label chosen by the controller (attribute names, item ids, refs): 1 to `max`
 * characters, no NUL character.
 */
export function boundedName(max = 256) {
  return z.string().min(1).max(max).refine(withoutNul, 'must not contain NUL characters')
}

/**
 * A timestamp as vs-agent's model writes one (ISO 8601, its `Date` serialised) or as the spec
 * does (integer Unix seconds). Accepted on bodies for compatibility; Parley stamps its own.
 */
export const AnyTimestamp = z.union([z.iso.datetime({ offset: true }), z.number().int().nonnegative()])

/**
 * Fields of every `POST /v1/message` body: the target connection, an optional thread to reply
 * in, and, as vs-agent's model has them, an optional message `id` (a UUID the controller chose:
 * the message is sent and reported under it; a reused one is refused) and `timestamp` (accepted,
 * not used: the agent stamps its own). Unknown fields are refused, at every level of every body.
 */
export const SendMessageBase = z.strictObject({
  id: z.uuid().optional(),
  timestamp: AnyTimestamp.optional(),
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

export { uniqueBy } from '../unique-by.ts'
