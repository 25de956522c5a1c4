/**
 * Internal events: work the agent keeps in the outbox for one of its own subscribers (a
 * presentation callback owed, …), beside the spec's agent events, so it is delivered by the same
 * engine with the same durable retries, dead letters and replay. Their topic starts with
 * `internal.`; they are never delivered to any other subscriber (webhooks, the tunnel,
 * subscriptions) nor listed by event streams: only a subscriber that names the topic
 * (`Subscriber.topic`) receives them. Their lane is a key of the owner's choosing (e.g.
 * `presentation-flow:<id>`) in place of a connection id: one lane's events go in order.
 *
 * The outbox stores every body as JSON and reads it back typed as an agent event; `internalEvent`
 * is the one place an internal body is read back as what it is.
 */
import type { AgentEvent } from '@parley/shared'
import type { PublishedEvent } from './store.ts'

/** What every internal topic starts with; no agent event's topic does. */
export const INTERNAL_TOPIC_PREFIX = 'internal.'

/** An internal event: its `type` (the topic) starts with `internal.`; the rest is its owner's. */
export interface InternalEvent {
  type: `${typeof INTERNAL_TOPIC_PREFIX}${string}`
}

/** Whether `published` is an internal event. */
export function isInternal(published: PublishedEvent): boolean {
  return published.event.type.startsWith(INTERNAL_TOPIC_PREFIX)
}

/** `event` as the outbox stores it (a JSON body under its topic). */
export function asStored(event: InternalEvent): AgentEvent {
  return event as unknown as AgentEvent
}

/** The body of `published` when it is an internal event of `topic`; undefined otherwise. */
export function internalEvent<E extends InternalEvent>(published: PublishedEvent, topic: E['type']): E | undefined {
  return published.event.type === (topic as string) ? (published.event as unknown as E) : undefined
}
