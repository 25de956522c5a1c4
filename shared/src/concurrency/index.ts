/**
 * Per-key serial execution: tasks queued under one key run one after another, in the order they
 * were queued; tasks of different keys run concurrently. Used wherever work of one connection,
 * message or flow must not overtake earlier work of the same one.
 */
export class KeyedQueue {
  /** The settled end of the last task queued per key (never rejects). */
  private readonly tails = new Map<string, Promise<void>>()

  /**
   * Runs `task` once every task queued before under `key` has settled (whatever its outcome).
   * @returns `task`'s result; rejects with its error (later tasks of the key still run)
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task)
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return result
  }

  /** Whether a task is queued or running under `key` (until a microtask after the last one settled). */
  has(key: string): boolean {
    return this.tails.has(key)
  }

  /** Keys with a task queued or running. */
  get size(): number {
    return this.tails.size
  }

  /** Resolves when every task queued so far has settled. */
  async settled(): Promise<void> {
    await Promise.all(this.tails.values())
  }
}
