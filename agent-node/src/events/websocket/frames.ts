/**
 * Frames of event delivery over WebSocket, one JSON text message each. The same event frame is
 * used by WebSocket subscriptions (the agent dials the subscriber) and by the admin stream
 * `/v1/events` (a local controller dials the agent).
 *
 * agent -> subscriber
 * - `event`: `{ kind: 'event', id, connectionId, seq, cursor, event }`. `id` (UUID) is the
 *   dedupe key, the same on every redelivery; `seq` numbers the events of one connection from 1
 *   (the ordering key); `cursor` is the event's position in the agent's outbox, which grows
 *   across all connections (resume `/v1/events` with `from=<cursor>`); `event` is the body
 *   exactly as POSTed to webhooks (its `type` is the topic).
 *
 * subscriber -> agent (WebSocket subscriptions only; `/v1/events` takes no frames)
 * - `ack`: `{ kind: 'ack', id }`: the event is processed; the next event of its connection follows.
 * - `reject`: `{ kind: 'reject', id, reason }`: the subscriber refuses the event for good; it is
 *   dead-lettered (like an HTTP 4xx) and the next event of its connection follows.
 */
import { z } from 'zod'
import { AckFrame, EventFrame } from '@parley/shared'
import type { PublishedEvent } from '../outbox/store.ts'

export const StreamEventFrame = EventFrame.extend({ cursor: z.number().int().nonnegative() })
export type StreamEventFrame = z.infer<typeof StreamEventFrame>

export const RejectFrame = z.object({ kind: z.literal('reject'), id: z.uuid(), reason: z.string().max(1_000) })
export type RejectFrame = z.infer<typeof RejectFrame>

/** Frames a WebSocket subscriber sends back. */
export const SubscriberFrame = z.discriminatedUnion('kind', [AckFrame, RejectFrame])
export type SubscriberFrame = z.infer<typeof SubscriberFrame>

/** The event frame of a stored event, serialized. */
export function eventFrame({ id, connectionId, seq, position, event }: PublishedEvent): string {
  const frame: StreamEventFrame = { kind: 'event', id, connectionId, seq, cursor: position, event }
  return JSON.stringify(frame)
}
