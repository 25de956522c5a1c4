/**
 * The tunnel gateway's writes that may wait a little: the counters (`counters.ts`) and the
 * deletion of settled commands' outbox rows. Each owner registers how it writes what it holds and
 * asks for a write with `soon()`; all of them run together at most `WRITE_BEHIND_MS` later, in
 * one synchronous stretch, so in one storage commit (a Durable Object commits together the writes
 * made without an `await` between them). Written at once, each was a commit of its own per chat
 * turn, with an `fsync` in local workerd and a row written on Cloudflare's bill. What an object
 * that dies unexpectedly had not written yet is lost: counts (as a process's in-memory metrics on
 * a crash) and deletions (those commands are sent once more, and agent-node answers them as
 * replays of their idempotency keys).
 */

/** How long a write may wait, in ms. */
export const WRITE_BEHIND_MS = 1_000

/** Writers run together within `WRITE_BEHIND_MS` of the first `soon()` after a flush. */
export class WriteBehind {
  private readonly writers: Array<() => void> = []
  private timer?: ReturnType<typeof setTimeout>

  /** Adds `write`, run at every flush: it writes what its owner holds and forgets it. */
  register(write: () => void): void {
    this.writers.push(write)
  }

  /** Asks for a flush within `WRITE_BEHIND_MS` (one timer, however often it is asked). */
  soon(): void {
    this.timer ??= setTimeout(() => this.flush(), WRITE_BEHIND_MS)
  }

  /** Runs every writer now, in one synchronous stretch. */
  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    for (const write of this.writers) write()
  }
}
