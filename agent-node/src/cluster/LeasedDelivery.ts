/**
 * Event delivery shared by instances (`Cluster.ts`): each subscriber (webhooks, the tunnel, every
 * event subscription, presentation callbacks) is delivered by the one instance that holds its
 * lease `delivery:<subscriber>`; the others keep it registered here, standing by, and start its
 * lanes when they take the lease over (its holder stopped, or died and its lease expired). The
 * new holder resumes every lane from the cursors in the database: an event in flight at a kill is
 * delivered again with the same id (receivers dedupe by it).
 *
 * Events are appended by every instance, so the holder learns of another instance's events from
 * `parley_outbox` signals (`Cluster.signal`: the connection ids), and, at every renewal round, from
 * the database (`DeliveryEngine.poke`), which also catches a signal that was lost. On SQLite the
 * process is alone: its own events reach the lanes directly, and the round does not look.
 */
import type { DeliveryEngine } from '../events/delivery/engine.ts'
import type { Subscriber } from '../events/delivery/subscriber.ts'
import type { DeadLetter, PublishedEvent } from '../events/outbox/store.ts'
import type { Logger } from '../logging/index.ts'
import type { Cluster } from './Cluster.ts'

/** The channel on which an instance names the connections it appended events to, comma-separated. */
const OUTBOX_CHANNEL = 'parley_outbox'
/** Connection ids per notification (a PostgreSQL payload holds under 8000 bytes). */
const IDS_PER_SIGNAL = 100

/** The lease of subscriber `name`. */
export function deliveryLease(name: string): string {
  return `delivery:${name}`
}

/** What adds and removes subscribers: the engine itself, or this class in front of it. */
export type SubscriberRegistry = Pick<DeliveryEngine, 'addSubscriber' | 'removeSubscriber'>

export class LeasedDelivery implements SubscriberRegistry {
  constructor(
    private readonly engine: DeliveryEngine,
    private readonly cluster: Cluster,
    private readonly logger: Logger,
  ) {
    cluster.onSignal(OUTBOX_CHANNEL, (data) => this.poke(data.split(',')))
    // The round's check reads the events appended since each subscriber's lag floor last rose,
    // for those of another instance; on SQLite there is no other instance.
    if (cluster.shared) cluster.onTick(() => engine.poke())
  }

  /**
   * Delivers to `subscriber` while this instance holds its lease; stands by otherwise. Resolves
   * once the lease was tried (and, when it was taken, the subscriber's lanes resumed).
   */
  async addSubscriber(subscriber: Subscriber): Promise<void> {
    await this.cluster.want(deliveryLease(subscriber.name), {
      gained: () => this.engine.addSubscriber(subscriber),
      lost: () => this.engine.removeSubscriber(subscriber.name),
    })
  }

  /** Stops delivering to (or standing by for) `name`; `forget` drops its cursors and dead letters. */
  async removeSubscriber(name: string, options: { forget?: boolean } = {}): Promise<void> {
    await this.cluster.unwant(deliveryLease(name))
    await this.engine.removeSubscriber(name, options)
  }

  /** Marks dead letter `id` for replay (`DeliveryEngine.replay`) and tells the holder of its lane. */
  async replay(id: string): Promise<DeadLetter | undefined> {
    const letter = await this.engine.replay(id)
    if (letter) await this.cluster.signal(OUTBOX_CHANNEL, letter.connectionId)
    return letter
  }

  /** Tells the other instances which connections `events` (just stored here) belong to. */
  announce(events: readonly PublishedEvent[]): void {
    const ids = [...new Set(events.map((event) => event.connectionId))]
    for (let i = 0; i < ids.length; i += IDS_PER_SIGNAL)
      void this.cluster.signal(OUTBOX_CHANNEL, ids.slice(i, i + IDS_PER_SIGNAL).join(','))
  }

  private poke(connectionIds: readonly string[]): void {
    this.engine.poke(connectionIds).catch((error: unknown) => this.logger.warn({ err: error }, 'could not wake delivery lanes'))
  }
}
