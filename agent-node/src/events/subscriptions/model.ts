/**
 * What a controller sends and gets back on `/v1/event-subscriptions` (zod schemas, types
 * inferred), and the event filter a subscription (or the `/v1/events` stream) applies.
 */
import { z } from 'zod'
import { AgentEvent, urlField, type EventTopic as Topic } from '@parley/shared'
import { isInternal } from '../outbox/internal.ts'
import type { PublishedEvent } from '../outbox/store.ts'

/** Every topic of the spec's "Events" section. */
export const EventTopic = z.enum(AgentEvent.options.map((option) => option.shape.type.value) as [Topic, ...Topic[]])
export type EventTopic = z.infer<typeof EventTopic>

/** How events reach a subscriber, from its URL's scheme. */
export const DeliveryKind = z.enum(['http', 'websocket'])
export type DeliveryKind = z.infer<typeof DeliveryKind>

/**
 * Which events a subscriber receives: those whose topic is in `topics` (every topic when absent)
 * and whose connection is `connectionId` (every connection when absent).
 */
export const EventFilter = z.object({
  topics: z
    .array(EventTopic)
    .min(1)
    .refine((topics) => new Set(topics).size === topics.length, 'topics must not repeat')
    .optional()
    .describe('Topics to receive; every topic when absent'),
  connectionId: z.uuid().optional().describe('Only events of this connection; every connection when absent'),
})
export type EventFilter = z.infer<typeof EventFilter>

/**
 * `POST /v1/event-subscriptions` body. Unknown fields are refused. An http(s) URL takes no query
 * or fragment, since the topic is appended to its path.
 */
export const CreateSubscriptionBody = EventFilter.extend({
  url: urlField(/^(https?|wss?)$/, 'http(s):// or ws(s)://')
    .max(2_048)
    .refine(
      (url) => deliveryKindOf(url) === 'websocket' || !/[?#]/.test(url),
      'an http(s) URL takes no query or fragment: events are POSTed to <url>/<topic>',
    )
    .describe('http(s)://: events are POSTed to <url>/<topic>. ws(s)://: the agent dials it and sends event frames'),
}).strict()
export type CreateSubscriptionBody = z.infer<typeof CreateSubscriptionBody>

/** A registered subscription. `topics` and `connectionId` are null when not filtering. */
export const Subscription = z.object({
  id: z.uuid(),
  url: z.string(),
  delivery: DeliveryKind,
  topics: z.array(EventTopic).nullable(),
  connectionId: z.uuid().nullable(),
  createdAt: z.string().describe('ISO 8601'),
})
export type Subscription = z.infer<typeof Subscription>

/** The delivery kind of `url` (already validated as http(s) or ws(s)). */
export function deliveryKindOf(url: string): DeliveryKind {
  return /^wss?:/i.test(url) ? 'websocket' : 'http'
}

/** Whether `published` passes `filter` (an internal event, `../outbox/internal.ts`, never does). */
export function matchesFilter(filter: EventFilter, published: PublishedEvent): boolean {
  if (isInternal(published)) return false
  if (filter.connectionId && published.connectionId !== filter.connectionId) return false
  return !filter.topics || filter.topics.includes(published.event.type)
}
