/**
 * Per-connection ordering of tunnel events: the events of one DIDComm connection run strictly one
 * after another, in arrival order; different connections run concurrently (the shared
 * `KeyedQueue`, keyed by connection id).
 *
 * When an event fails, later events of its connection are held back (skipped, so not
 * acknowledged) until the failed event is delivered again: agent-node re-sends everything it has
 * not seen acknowledged, in order, so nothing is applied ahead of an earlier event.
 */
import { KeyedQueue } from '@parley/shared/concurrency'

export type QueueOutcome = 'done' | 'failed' | 'held-back'

/** The per-connection queues of one gateway instance (in memory; see the module comment). */
export class ConnectionQueues {
  private readonly queue = new KeyedQueue()
  /** Id of the event that failed, per connection held back; the connection waits for it. */
  private readonly failed = new Map<string, string>()

  /**
   * Runs `task` for event `eventId` of `connectionId` after every earlier task of that
   * connection has settled.
   * @returns `done` when the task succeeded, `failed` when it threw (the connection is then held
   *   back), `held-back` when it was skipped because an earlier event of its connection failed.
   */
  run(connectionId: string, eventId: string, task: () => Promise<void>): Promise<QueueOutcome> {
    return this.queue.run(connectionId, async (): Promise<QueueOutcome> => {
      const failedEventId = this.failed.get(connectionId)
      if (failedEventId !== undefined && failedEventId !== eventId) return 'held-back'
      try {
        await task()
        this.failed.delete(connectionId)
        return 'done'
      } catch {
        this.failed.set(connectionId, eventId)
        return 'failed'
      }
    })
  }

  /** Forgets held-back connections (a new agent socket starts from a clean slate). */
  reset(): void {
    this.failed.clear()
  }
}
