/**
 * What a destination of events implements to be fed from the outbox by the `DeliveryEngine`.
 *
 * How a new kind of subscriber plugs in (an HTTP subscription, a WebSocket stream, …):
 * 1. Implement `Subscriber`: a stable `name` (it keys the subscriber's cursors and dead letters
 *    in the database, so keep it the same across restarts, e.g. `subscription:<id>`), its
 *    `retry` policy, optionally `accepts` (a filter: events it refuses are skipped, not
 *    delivered), and `deliver`, which makes ONE attempt and reports its outcome. `deliver` must
 *    not throw (a throw counts as `retry`) and should give up when `signal` aborts (shutdown).
 * 2. Call `engine.addSubscriber(subscriber)`. From then on it receives every event appended
 *    after it was first added, one connection's events strictly in `seq` order, the next only
 *    after the previous one was acknowledged or dead-lettered; connections in parallel.
 * 3. Call `engine.removeSubscriber(name)` to stop it (`forget: true` also drops its cursors and
 *    dead letters, for a deleted subscription).
 *
 * Delivery is at least once: after a crash, the event in flight is delivered again with the
 * same `id`, so receivers dedupe by it.
 */
import { isInternal } from '../outbox/internal.ts'
import type { PublishedEvent } from '../outbox/store.ts'
import type { RetryPolicy } from './retry.ts'

/**
 * The result of one attempt:
 * - `acknowledged`: done (HTTP 2xx, tunnel ack).
 * - `retry`: a transient failure (5xx, timeout, network error, tunnel down); tried again after
 *   a backoff, dead-lettered when the policy's attempts are used up.
 * - `rejected`: the receiver refused the event for good (HTTP 4xx); dead-lettered at once.
 */
export type DeliveryOutcome = { result: 'acknowledged' } | { result: 'retry'; error: string } | { result: 'rejected'; error: string }

/** The `retry` outcome of an attempt that threw `error`. */
export function retryOutcome(error: unknown): DeliveryOutcome {
  return { result: 'retry', error: error instanceof Error ? error.message : String(error) }
}

export interface Subscriber {
  /** Stable identifier, unique among subscribers; keys database rows. */
  readonly name: string
  readonly retry: RetryPolicy
  /**
   * The internal topic (`../outbox/internal.ts`) this subscriber serves: it then receives only
   * that topic's events. Without it, a subscriber receives agent events only, never internal ones.
   */
  readonly topic?: string
  /** Whether `event` is for this subscriber (default: every event). Must be pure and fast. */
  accepts?(event: PublishedEvent): boolean
  /**
   * How many of one connection's events may be sent before the answer to the first came back
   * (default 1: each waits for the previous one's answer). More than one is only for a receiver
   * that handles a connection's events in the order they were sent and stores none after one it
   * failed to store (the tunnel's worker holds them back), and whose `deliver` sends the event
   * before it returns. Answers are still taken in `seq` order (`window.ts`).
   */
  readonly maxInFlight?: number
  /** One delivery attempt of `event`. Never throws; stops early when `signal` aborts. */
  deliver(event: PublishedEvent, signal: AbortSignal): Promise<DeliveryOutcome>
}

/** Whether `subscriber` receives `event`: its topic (internal subscribers) or an agent event, then its own filter. */
export function receives(subscriber: Subscriber, event: PublishedEvent): boolean {
  const ofTopic = subscriber.topic ? event.event.type === subscriber.topic : !isInternal(event)
  return ofTopic && (!subscriber.accepts || subscriber.accepts(event))
}
