/**
 * Safe primes searched ahead of time, so a credential definition does not wait for its two
 * 1,025-bit safe-prime searches (0.2–0.3 s CPU each at the median, up to about 2 s: random in
 * length). The reserve holds the Sophie Germain halves p' (secret key material: kept only in
 * this process's memory, never logged, never stored) and refills one search at a time, in the
 * background, while filling is on. Taking pauses the refill, so the searches of a credential definition being made never
 * compete with it for the worker threads; the caller resumes it with `fill()` afterwards.
 */

interface Entry {
  prime: Promise<bigint>
  settled: boolean
}

/** A bounded reserve of safe-prime halves p', oldest first; at most one search in flight. */
export class SafePrimeReserve {
  private readonly entries: Entry[] = []
  private searching = false
  private filling = false
  private closed = false
  private waiters: Array<() => void> = []

  /**
   * @param size primes kept ready at most (0: the reserve stays empty and `fill` does nothing).
   * @param search one new safe-prime half p' (a worker-thread task).
   */
  constructor(
    readonly size: number,
    private readonly search: () => Promise<bigint>,
  ) {
    if (!Number.isInteger(size) || size < 0) throw new RangeError('the reserve size must be an integer >= 0')
  }

  /** Primes found and waiting (the one being searched for is not counted). */
  get ready(): number {
    return this.entries.filter((entry) => entry.settled).length
  }

  /**
   * Removes up to `count` primes, found ones first, then the one being searched for (its promise
   * settles when the search does), and pauses the refill until the next `fill`.
   */
  take(count: number): Array<Promise<bigint>> {
    this.filling = false
    this.settleWaiters()
    return this.entries.splice(0, count).map((entry) => entry.prime)
  }

  /**
   * Turns filling on: searches one prime after another until `size` are ready. Resolves when the
   * reserve is full, or when filling stops (a `take`, a failed search, `close`); never rejects.
   */
  fill(): Promise<void> {
    if (this.closed || this.size === 0) return Promise.resolve()
    this.filling = true
    const done = new Promise<void>((resolve) => this.waiters.push(resolve))
    this.refill()
    return done
  }

  /** Stops filling for good and forgets the primes. */
  close(): void {
    this.closed = true
    this.filling = false
    this.entries.length = 0
    this.settleWaiters()
  }

  private refill(): void {
    if (!this.filling || this.closed) {
      this.settleWaiters()
      return
    }
    if (this.searching) return
    if (this.entries.length >= this.size) {
      if (this.entries.every((entry) => entry.settled)) this.settleWaiters()
      return
    }
    this.searching = true
    const entry: Entry = { prime: this.search(), settled: false }
    this.entries.push(entry)
    entry.prime.then(
      () => {
        entry.settled = true
        this.searching = false
        this.refill()
      },
      () => {
        // a failed search (the pool closed, a thread died) stops filling; a taker sees the rejection
        this.searching = false
        this.filling = false
        const index = this.entries.indexOf(entry)
        if (index >= 0) this.entries.splice(index, 1)
        this.settleWaiters()
      },
    )
  }

  private settleWaiters(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const resolve of waiters) resolve()
  }
}
