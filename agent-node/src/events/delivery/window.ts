/**
 * A lane's send window: the events of one connection a subscriber may be sent before the answer
 * to the first of them came back (`Subscriber.maxInFlight`). Answers are still taken one at a
 * time, in `seq` order (`engine.ts`), so the cursor never passes an event that was neither
 * acknowledged nor dead-lettered; only the round trips overlap.
 *
 * What was sent ahead is dropped as soon as the event at the head of the window is not
 * acknowledged at once: a receiver with a window (the tunnel) stores none of a connection's
 * events after one it failed to store, so their answers say nothing. They are sent again in
 * their turn, with their ids, and the receiver drops what it already stored.
 */
import type { PublishedEvent } from '../outbox/store.ts'
import { retryOutcome, type DeliveryOutcome } from './subscriber.ts'

export class SendWindow {
  /** Attempts sent ahead of their turn, by event id. */
  private readonly ahead = new Map<string, Promise<DeliveryOutcome>>()
  private batch: readonly PublishedEvent[] = []
  /** Index in `batch` of the first event not considered for sending ahead yet. */
  private scanned = 0

  /**
   * @param size events of the connection in flight at most (`Subscriber.maxInFlight`, ≥ 1).
   * @param send makes one attempt of an event and never rejects (the subscriber's `deliver`,
   *   which hands the event over before it returns: events are sent in the order of the calls);
   *   called only once the events are durable.
   * @param durable resolves once every stored event is on disk (`OutboxStore.syncToDisk`).
   */
  constructor(
    private readonly size: number,
    private readonly send: (event: PublishedEvent) => Promise<DeliveryOutcome>,
    private readonly durable: () => Promise<void>,
  ) {}

  /** Starts on the next batch of the lane's events (`seq` order, no gap); nothing sent ahead carries over. */
  begin(batch: readonly PublishedEvent[]): void {
    this.batch = batch
    this.ahead.clear()
    this.scanned = 0
  }

  /**
   * One attempt of `batch[index]`, and its outcome: the event is sent now unless it was sent
   * ahead, and with it the next events `takes` accepts, until `size` are in flight. When the
   * outcome is not `acknowledged` (a failed `durable` is `retry`, nothing sent), what was sent
   * ahead is dropped (see the module comment). Never throws.
   */
  async take(index: number, takes: (event: PublishedEvent) => boolean): Promise<DeliveryOutcome> {
    const event = this.batch[index]!
    const sentAhead = this.ahead.get(event.id)
    this.ahead.delete(event.id)
    const due = sentAhead ? [] : [event]
    let inFlight = 1 + this.ahead.size
    for (this.scanned = Math.max(this.scanned, index + 1); this.scanned < this.batch.length && inFlight < this.size; this.scanned++) {
      const later = this.batch[this.scanned]!
      if (!takes(later)) continue
      due.push(later)
      inFlight++
    }
    try {
      if (due.length > 0) await this.durable()
    } catch (error) {
      this.drop()
      return retryOutcome(error)
    }
    let outcome = sentAhead
    for (const sent of due) {
      const attempt = this.send(sent)
      if (sent === event) outcome = attempt
      else this.ahead.set(sent.id, attempt)
    }
    const answer = await outcome!
    if (answer.result !== 'acknowledged') this.drop()
    return answer
  }

  /** Forgets what was sent ahead (their answers are not waited for); they are sent again in turn. */
  private drop(): void {
    this.ahead.clear()
    this.scanned = 0
  }
}
