/**
 * Turns of CPU-bound work, at most one per event-loop iteration.
 *
 * Why: SQLite (`database/sqlite.ts`) runs its statements synchronously and DIDComm crypto is pure
 * JavaScript, so the promises of a message's processing are already settled when awaited. A loop
 * `await`ing one message after another is then a single chain of microtasks: the event loop
 * never gets to poll its sockets until the whole backlog is done (profiled: 200 envelopes held it
 * 1.6–20 s, `/health` unanswered meanwhile). Waiting for a turn puts a `setImmediate` between two
 * pieces of work; one granted from inside the check phase runs in the next iteration, after the
 * poll phase has read what arrived.
 */
export class EventLoopTurns {
  private readonly waiting: Array<() => void> = []
  private scheduled = false

  /** Resolves at the caller's turn, in arrival order, each in an event-loop iteration of its own. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve)
      this.schedule()
    })
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.waiting.shift()?.()
      this.schedule()
    })
  }
}
