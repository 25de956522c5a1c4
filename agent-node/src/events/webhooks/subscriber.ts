/**
 * A `Subscriber` that POSTs each event to `<baseUrl>/<topic>` with the event body as JSON (spec
 * "Events"): the default subscription `EVENTS_BASE_URL`, and the shape HTTP subscriptions reuse.
 *
 * Outcomes (spec "Delivery rules"): 2xx acknowledges; 4xx rejects (dead-lettered, not retried);
 * 5xx, other statuses, timeouts and network errors are retried. Each POST carries
 * `webhook-id` (the event id, also sent as `x-parley-event-id`), `x-parley-event-seq` (its
 * per-connection sequence number) and, with a signing key, the Standard Webhooks
 * `webhook-timestamp` and `webhook-signature` (`signing.ts`).
 */
import type { PublishedEvent } from '../outbox/store.ts'
import type { RetryPolicy } from '../delivery/retry.ts'
import type { DeliveryOutcome, Subscriber } from '../delivery/subscriber.ts'
import { postForDelivery } from './post.ts'
import { signatureHeaders } from './signing.ts'

/** How events are POSTed (the default subscription, HTTP subscriptions; configuration `eventDelivery`). */
export interface WebhookDelivery {
  /** Standard Webhooks key (decoded `whsec_` secret); unsigned when absent. */
  signingKey?: Buffer
  retry: RetryPolicy
  /** Time allowed for one POST, in milliseconds. */
  timeoutMs: number
}

export interface WebhookSubscriberOptions extends WebhookDelivery {
  /** Stable subscriber name (database key), e.g. `webhook:default`. */
  name: string
  /** Base URL without trailing slash; the topic is appended as a path segment. */
  baseUrl: string
  /** Only events this accepts are posted (subscription filters). */
  accepts?: (event: PublishedEvent) => boolean
  /** The fetch to use (an outbound-guarded one for user-supplied URLs); global fetch by default. */
  fetch?: typeof fetch
}

export class WebhookSubscriber implements Subscriber {
  readonly name: string
  readonly retry: RetryPolicy
  readonly accepts?: (event: PublishedEvent) => boolean

  constructor(private readonly options: WebhookSubscriberOptions) {
    this.name = options.name
    this.retry = options.retry
    this.accepts = options.accepts
  }

  async deliver({ id, seq, event }: PublishedEvent, signal: AbortSignal): Promise<DeliveryOutcome> {
    const url = `${this.options.baseUrl}/${event.type}`
    const body = JSON.stringify(event)
    const headers: Record<string, string> = { 'x-parley-event-id': id, 'x-parley-event-seq': String(seq) }
    Object.assign(
      headers,
      this.options.signingKey ? signatureHeaders(this.options.signingKey, id, Math.floor(Date.now() / 1000), body) : { 'webhook-id': id },
    )
    return postForDelivery(url, body, headers, { fetch: this.options.fetch ?? fetch, timeoutMs: this.options.timeoutMs, signal })
  }
}
