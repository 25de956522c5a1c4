/**
 * Group commit for the embedded SQLite database. With `synchronous = NORMAL` in WAL mode SQLite
 * writes each commit to the WAL file without waiting for the disk (SQLite documentation, "PRAGMA
 * synchronous": consistent after a power loss, but the last commits may roll back). agent-node
 * makes its commits durable before anything outside the process can learn of them: a DIDComm
 * message sent, an event delivered, an admin or public HTTP answer, a tunnel command result each
 * first wait for `DiskSync.wait`, which syncs the WAL file (`fdatasync`, on libuv's thread pool,
 * off the event loop) once for every caller waiting at that moment. What a power loss can take
 * is then only what nobody outside has seen; a WAL keeps a prefix of its commits, so the state
 * after a power loss is the state at some commit after the last sync.
 */
import { open } from 'node:fs/promises'

/** Coalesces durability waits: callers share a sync that starts after their call. */
export class DiskSync {
  /** The sync under way, if any. */
  private running?: Promise<void>
  /** The sync that follows the one under way, shared by everyone who asked meanwhile. */
  private queued?: Promise<void>

  /** @param sync makes everything written before it was called durable (one `fdatasync`). */
  constructor(private readonly sync: () => Promise<void>) {}

  /**
   * Resolves once every commit made before the call is durable. A sync already under way may
   * have started before the caller's last commit, so the caller waits for the next one, which
   * every caller arriving meanwhile shares.
   * @throws the sync's error (the disk refused to sync: the commits may not be durable)
   */
  wait(): Promise<void> {
    if (!this.running) return this.start()
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined
        return this.start()
      })
    return this.queued
  }

  private start(): Promise<void> {
    const run: Promise<void> = this.sync().finally(() => {
      if (this.running === run) this.running = undefined
    })
    this.running = run
    return run
  }
}

/**
 * Syncs the WAL file of the SQLite database `file` (`<file>-wal`) to disk; nothing to do while
 * there is none (no commit since the last checkpoint removed it, and SQLite syncs the database
 * file itself at a checkpoint).
 */
export async function syncWalFile(file: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(`${file}-wal`, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  try {
    await handle.datasync()
  } finally {
    await handle.close()
  }
}
