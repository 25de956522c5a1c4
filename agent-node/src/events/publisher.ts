/**
 * The one place every agent event leaves agent-node through. `publish` writes the event to the
 * outbox (the agent database) with its id (the receivers' dedupe key) and its per-connection
 * sequence number (their ordering key), then wakes the delivery engine, which hands it to every
 * subscriber (webhooks, the tunnel, subscriptions) from the database: nothing is held only in
 * memory once `publish` has resolved.
 *
 * Events published in the same moment are written in one batch (group commit), in call order.
 * A `message-received` is published once per DIDComm message (`dedupeKeyOf`): publishing it
 * again resolves with the stored event and wakes nobody.
 */
import { randomUUID } from 'node:crypto'
import { eventConnectionId, type AgentEvent } from '@parley/shared'
import type { Logger } from '../logging/index.ts'
import type { DeliveryEngine } from './delivery/engine.ts'
import { asStored, type InternalEvent } from './outbox/internal.ts'
import { type NewEvent, type OutboxStore, type PublishedEvent, receivedMessageDedupeKey } from './outbox/store.ts'

export type { PublishedEvent } from './outbox/store.ts'

/** Most events written in one batch. */
const MAX_BATCH = 500

interface Queued {
  event: NewEvent
  resolve(published: PublishedEvent): void
  reject(error: unknown): void
}

/**
 * The key that makes publishing `event` idempotent (`OutboxStore.append`): a `message-received`
 * is published once per connection and DIDComm message `@id`, however often its envelope is
 * processed (an envelope is processed again when the process that read it died before deleting
 * it from the inbox, `didcomm/inbox/`). Other events have none.
 */
export function dedupeKeyOf(connectionId: string, event: AgentEvent): string | undefined {
  return event.type === 'message-received' ? receivedMessageDedupeKey(connectionId, event.message.id) : undefined
}

export class EventPublisher {
  private queue: Queued[] = []
  private flushing?: Promise<void>
  /** Settles once the newest event appended so far is stored or failed (batches settle in order). */
  private newest: Promise<void> = Promise.resolve()
  private readonly listeners = new Set<(events: readonly PublishedEvent[]) => void>()
  private failedBatches = 0

  constructor(
    private readonly store: OutboxStore,
    private readonly engine: DeliveryEngine,
    private readonly logger: Logger,
  ) {}

  /**
   * Stamps `event` and appends it to the outbox.
   *
   * Callers that only report may ignore the promise: a failure is logged and never surfaces as
   * an unhandled rejection. Callers that must know the event is durable (e.g. `created` before
   * `POST /v1/message` answers) await it.
   * @returns the stored event once it is durable.
   * @throws (the promise rejects) when the database write fails.
   */
  publish(event: AgentEvent): Promise<PublishedEvent> {
    return this.append(eventConnectionId(event), event)
  }

  /**
   * Appends internal event `event` (`outbox/internal.ts`) in lane `lane` (a key of its owner's
   * choosing, standing where a connection id does), like `publish`: only the subscriber of its
   * topic receives it, in lane order.
   * @returns the stored event once it is durable.
   * @throws (the promise rejects) when the database write fails.
   */
  publishInternal(lane: string, event: InternalEvent): Promise<PublishedEvent> {
    return this.append(lane, asStored(event))
  }

  private append(connectionId: string, event: AgentEvent): Promise<PublishedEvent> {
    const stored = new Promise<PublishedEvent>((resolve, reject) => {
      this.queue.push({ event: { id: randomUUID(), connectionId, event, dedupeKey: dedupeKeyOf(connectionId, event) }, resolve, reject })
    })
    stored.catch((error: unknown) => this.logger.error({ err: error, topic: event.type, connectionId }, 'event could not be stored'))
    this.newest = stored.then(
      () => undefined,
      () => undefined,
    )
    this.flushing ??= this.flush()
    return stored
  }

  /**
   * Calls `listener` with each batch of events once it is stored (live event streams). It must
   * not throw.
   * @returns a function that removes it.
   */
  onStored(listener: (events: readonly PublishedEvent[]) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** How many batches of events could not be stored since this publisher was made (`events/recovery.ts` stops its checkpoint then). */
  get failures(): number {
    return this.failedBatches
  }

  /**
   * Resolves when every event published before the call is stored (or failed to be); events
   * published after it are not waited for, so a steady stream of events never holds it up.
   */
  settled(): Promise<void> {
    return this.newest
  }

  /** Resolves when every event published so far is stored (or failed to be), later ones included. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing
  }

  private async flush(): Promise<void> {
    await Promise.resolve() // let the current tick's publishes join this batch
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH)
        try {
          const stored = await this.store.append(batch.map((q) => q.event))
          const fresh: PublishedEvent[] = []
          stored.forEach((published, i) => {
            const log = { eventId: published.id, topic: published.event.type, connectionId: published.connectionId, seq: published.seq }
            if (published.id === batch[i]!.event.id) {
              this.logger.debug(log, 'event published')
              fresh.push(published)
            } else this.logger.info(log, 'event published before (the same DIDComm message processed again); not published again')
            batch[i]!.resolve(published)
          })
          if (fresh.length === 0) continue
          this.engine.notify(fresh)
          for (const listener of this.listeners) listener(fresh)
        } catch (error) {
          this.failedBatches++
          for (const queued of batch) queued.reject(error)
        }
      }
    } finally {
      this.flushing = undefined
    }
  }
}
