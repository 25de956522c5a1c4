/**
 * Per-connection ordering of tunnel events: the events of one DIDComm connection run strictly one
 * after another, in arrival order; different connections run concurrently.
 *
 * When an event fails, later events of its connection are held back (skipped, so not
 * acknowledged) until the failed event is delivered again: agent-node re-sends everything it has
 * not seen acknowledged, in order, so nothing is applied ahead of an earlier event.
 */
export type QueueOutcome = 'done' | 'failed' | 'held-back'

interface ConnectionQueue {
  tail: Promise<unknown>
  /** Id of the event that failed; the connection waits for it. */
  failedEventId?: string
}

/** The per-connection queues of one gateway instance (in memory; see the module comment). */
export class ConnectionQueues {
  private readonly queues = new Map<string, ConnectionQueue>()

  /**
   * Runs `task` for event `eventId` of `connectionId` after every earlier task of that
   * connection has settled.
   * @returns `done` when the task succeeded, `failed` when it threw (the connection is then held
   *   back), `held-back` when it was skipped because an earlier event of its connection failed.
   */
  run(connectionId: string, eventId: string, task: () => Promise<void>): Promise<QueueOutcome> {
    const queue = this.queues.get(connectionId) ?? { tail: Promise.resolve() }
    const outcome = queue.tail.then(async (): Promise<QueueOutcome> => {
      if (queue.failedEventId !== undefined && queue.failedEventId !== eventId) return 'held-back'
      try {
        await task()
        queue.failedEventId = undefined
        return 'done'
      } catch {
        queue.failedEventId = eventId
        return 'failed'
      }
    })
    queue.tail = outcome
    this.queues.set(connectionId, queue)
    void outcome.then(() => {
      if (this.queues.get(connectionId)?.tail === outcome && queue.failedEventId === undefined) this.queues.delete(connectionId)
    })
    return outcome
  }

  /** Forgets held-back connections (a new agent socket starts from a clean slate). */
  reset(): void {
    for (const queue of this.queues.values()) queue.failedEventId = undefined
  }
}
