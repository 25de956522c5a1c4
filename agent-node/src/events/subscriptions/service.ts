/**
 * Event subscriptions (`/v1/event-subscriptions`): each one is a `Subscriber` of the delivery
 * engine named `subscription:<id>`, so it has its own cursor in every connection of the outbox,
 * its own retry schedule and dead letters, and survives restarts.
 * - `http(s)://` URLs: a `WebhookSubscriber` (the same kind as EVENTS_BASE_URL) posting to
 *   `<url>/<topic>` through the outbound guard, with the webhook retry policy and signing key.
 * - `ws(s)://` URLs: a `WebSocketSubscriber`: the agent dials the URL and pushes event frames.
 *
 * Creating a subscription checks the URL with the outbound guard (scheme, the host resolves, no
 * private address outside OUTBOUND_ALLOWED_NETWORKS) but does not call it: a subscriber may come
 * up after registering, and delivery retries until it does. A new subscription receives the
 * events appended after it was created. Deleting one stops its delivery and drops its cursors
 * and dead letters.
 */
import { randomUUID } from 'node:crypto'
import type { OutboundGuard } from '../../http/outbound-guard.ts'
import type { Logger } from '../../logging/index.ts'
import type { DeliveryEngine } from '../delivery/engine.ts'
import type { PublishedEvent } from '../outbox/store.ts'
import { WebhookSubscriber, type WebhookDelivery } from '../webhooks/subscriber.ts'
import { WebSocketSubscriber } from '../websocket/subscriber.ts'
import { deliveryKindOf, matchesFilter, type CreateSubscriptionBody, type EventFilter, type Subscription } from './model.ts'
import type { SubscriptionStore } from './store.ts'

/** How a WebSocket subscriber is redialled: first delay and cap, in milliseconds. */
const WEBSOCKET_REDIAL = { minDelayMs: 250, maxDelayMs: 30_000 }

export interface SubscriptionServiceOptions {
  store: SubscriptionStore
  engine: DeliveryEngine
  guard: OutboundGuard
  /** Retry policy, timeout and signing key of HTTP deliveries (and the answer timeout of WebSocket ones). */
  delivery: WebhookDelivery
  logger: Logger
}

/** The delivery-engine name of subscription `id`. */
export function subscriberName(id: string): string {
  return `subscription:${id}`
}

export class SubscriptionService {
  /** Running WebSocket subscribers (their sockets must be closed on delete and shutdown). */
  private readonly sockets = new Map<string, WebSocketSubscriber>()

  constructor(private readonly options: SubscriptionServiceOptions) {}

  /** Starts delivering to every stored subscription (at start-up). */
  async start(): Promise<void> {
    for (const subscription of await this.options.store.list()) await this.activate(subscription)
  }

  /**
   * Registers a subscription and starts delivering to it.
   * @throws UnsafeUrlError when the outbound guard refuses `body.url` (wrong scheme, host that
   *   does not resolve, private address outside OUTBOUND_ALLOWED_NETWORKS).
   */
  async create(body: CreateSubscriptionBody): Promise<Subscription> {
    const subscription: Subscription = {
      id: randomUUID(),
      url: body.url,
      delivery: deliveryKindOf(body.url),
      topics: body.topics ?? null,
      connectionId: body.connectionId ?? null,
      createdAt: new Date().toISOString(),
    }
    await this.options.guard.check(subscription.url, subscription.delivery)
    await this.options.store.insert(subscription)
    try {
      await this.activate(subscription)
    } catch (error) {
      await this.options.store.delete(subscription.id)
      throw error
    }
    this.options.logger.info({ subscription: subscription.id, delivery: subscription.delivery }, 'event subscription created')
    return subscription
  }

  list(): Promise<Subscription[]> {
    return this.options.store.list()
  }

  get(id: string): Promise<Subscription | undefined> {
    return this.options.store.get(id)
  }

  /**
   * Stops delivering to subscription `id` and forgets it with its cursors and dead letters.
   * @returns whether it existed.
   */
  async delete(id: string): Promise<boolean> {
    await this.options.engine.removeSubscriber(subscriberName(id), { forget: true })
    this.sockets.get(id)?.stop()
    this.sockets.delete(id)
    const existed = await this.options.store.delete(id)
    if (existed) this.options.logger.info({ subscription: id }, 'event subscription deleted')
    return existed
  }

  /** Closes the WebSocket subscribers' sockets (after the engine stopped). */
  stop(): void {
    for (const socket of this.sockets.values()) socket.stop()
    this.sockets.clear()
  }

  private async activate(subscription: Subscription): Promise<void> {
    const { delivery, guard, engine, logger } = this.options
    const name = subscriberName(subscription.id)
    const filter: EventFilter = { topics: subscription.topics ?? undefined, connectionId: subscription.connectionId ?? undefined }
    const accepts = filter.topics || filter.connectionId ? (event: PublishedEvent) => matchesFilter(filter, event) : undefined
    if (subscription.delivery === 'http') {
      await engine.addSubscriber(
        new WebhookSubscriber({
          name,
          baseUrl: subscription.url.replace(/\/+$/, ''),
          accepts,
          ...delivery,
          fetch: (url, init) => guard.fetch(String(url), init as Parameters<OutboundGuard['fetch']>[1]),
        }),
      )
      return
    }
    const socket = new WebSocketSubscriber({
      name,
      url: subscription.url,
      accepts,
      lookup: guard.lookup,
      answerTimeoutMs: delivery.timeoutMs,
      redial: WEBSOCKET_REDIAL,
      signingKey: delivery.signingKey,
      logger,
    })
    socket.start()
    this.sockets.set(subscription.id, socket)
    try {
      await engine.addSubscriber(socket)
    } catch (error) {
      socket.stop()
      this.sockets.delete(subscription.id)
      throw error
    }
  }
}
