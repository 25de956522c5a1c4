/**
 * The one place every agent event leaves agent-node through. It stamps each event with an id
 * (the receivers' dedupe key) and a per-connection sequence number (their ordering key), then
 * hands the stamped event to every sink: the controller's webhooks and the tunnel.
 *
 * Sequence numbers and delivery state live in memory for now; the durable outbox replaces that
 * store without changing this interface (issue "Events that are never lost").
 */
import { randomUUID } from 'node:crypto'
import { eventConnectionId, type AgentEvent } from '@parley/shared'
import type { Logger } from '../logging/index.ts'

/** An event as it travels: `seq` starts at 1 per connection and grows by one per event. */
export interface PublishedEvent {
  id: string
  connectionId: string
  seq: number
  event: AgentEvent
}

/** A destination for events. `deliver` must not throw; it owns its retries and logging. */
export interface EventSink {
  readonly name: string
  deliver(published: PublishedEvent): void
}

export class EventPublisher {
  private readonly sinks: EventSink[] = []
  private readonly sequences = new Map<string, number>()

  constructor(private readonly logger: Logger) {}

  addSink(sink: EventSink): void {
    this.sinks.push(sink)
  }

  /** Stamps `event` and delivers it to every sink. @returns the stamped event. */
  publish(event: AgentEvent): PublishedEvent {
    const connectionId = eventConnectionId(event)
    const seq = (this.sequences.get(connectionId) ?? 0) + 1
    this.sequences.set(connectionId, seq)
    const published: PublishedEvent = { id: randomUUID(), connectionId, seq, event }
    this.logger.debug({ eventId: published.id, topic: event.type, connectionId, seq }, 'event published')
    for (const sink of this.sinks) sink.deliver(published)
    return published
  }
}
