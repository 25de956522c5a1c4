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
import type { SubscriberRegistry } from '../../cluster/LeasedDelivery.ts'
import type { PublishedEvent } from '../outbox/store.ts'
import { WebhookSubscriber, type WebhookDelivery } from '../webhooks/subscriber.ts'
import { WebSocketSubscriber } from '../websocket/subscriber.ts'
import { deliveryKindOf, matchesFilter, type CreateSubscriptionBody, type EventFilter, type Subscription } from './model.ts'
import type { SubscriptionStore } from './store.ts'

/** How a WebSocket subscriber is redialled: first delay and cap, in milliseconds. */
const WEBSOCKET_REDIAL = { minDelayMs: 250, maxDelayMs: 30_000 }

export interface SubscriptionServiceOptions {
  store: SubscriptionStore
  /** Where subscribers are added and removed (the delivery engine, or the leases in front of it). */
  engine: SubscriberRegistry
  guard: OutboundGuard
  /** Retry policy, timeout and signing key of HTTP deliveries (and the answer timeout of WebSocket ones). */
  delivery: WebhookDelivery
  logger: Logger
  /** Called after a subscription was created or deleted here, to tell the other instances (`sync`). */
  changed?: () => void
}

/** The channel on which instances tell each other that subscriptions were created or deleted (`sync`). */
export const SUBSCRIPTIONS_CHANNEL = 'parley_subscriptions'

/** The delivery-engine name of subscription `id`. */
export function subscriberName(id: string): string {
  return `subscription:${id}`
}

export class SubscriptionService {
  /** Running WebSocket subscribers (their sockets must be closed on delete and shutdown). */
  private readonly sockets = new Map<string, WebSocketSubscriber>()
  /** Ids of the subscriptions this process delivers to (or stands by for, `cluster/`). */
  private readonly active = new Set<string>()
  private syncing: Promise<void> = Promise.resolve()

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
    this.options.changed?.()
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
    await this.deactivate(id)
    const existed = await this.options.store.delete(id)
    if (existed) this.options.logger.info({ subscription: id }, 'event subscription deleted')
    this.options.changed?.()
    return existed
  }

  /**
   * Brings this process in line with the stored subscriptions, which another instance may have
   * created or deleted (`cluster/`): starts the new ones, stops and forgets the deleted ones.
   * Calls run one after another.
   */
  sync(): Promise<void> {
    this.syncing = this.syncing.then(async () => {
      const stored = await this.options.store.list()
      const ids = new Set(stored.map((subscription) => subscription.id))
      for (const id of [...this.active]) if (!ids.has(id)) await this.deactivate(id)
      for (const subscription of stored) {
        if (this.active.has(subscription.id)) continue
        try {
          await this.activate(subscription)
        } catch (error) {
          this.options.logger.warn({ err: error, subscription: subscription.id }, 'event subscription not started; trying again later')
        }
      }
    })
    return this.syncing
  }

  /** Closes the WebSocket subscribers' sockets (after the engine stopped). */
  stop(): void {
    for (const socket of this.sockets.values()) socket.stop()
    this.sockets.clear()
    this.active.clear()
  }

  /** Stops delivering to subscription `id` and forgets its cursors and dead letters. */
  private async deactivate(id: string): Promise<void> {
    this.active.delete(id)
    await this.options.engine.removeSubscriber(subscriberName(id), { forget: true })
    this.sockets.get(id)?.stop()
    this.sockets.delete(id)
  }

  private async activate(subscription: Subscription): Promise<void> {
    this.active.add(subscription.id)
    try {
      await this.launch(subscription)
    } catch (error) {
      this.active.delete(subscription.id)
      throw error
    }
  }

  private async launch(subscription: Subscription): Promise<void> {
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
