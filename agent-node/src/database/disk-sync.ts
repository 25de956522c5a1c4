/**
 * Group commit for the embedded SQLite database. With `synchronous = NORMAL` in WAL mode SQLite
 * writes each commit to the WAL file without waiting for the disk (SQLite documentation, "PRAGMA
 * synchronous": consistent after a power loss, but the last commits may roll back). agent-node
 * makes its commits durable before anything outside the process can learn of them: a DIDComm
 * message sent, an event delivered, an admin or public HTTP answer, a tunnel command result each
 * first wait for `DiskSync.wait`, which syncs the WAL file (`fdatasync`, on libuv's thread pool,
 * off the event loop) once for every caller waiting at that moment, and not at all when nothing
 * was written since the last sync began. What a power loss can take
 * is then only what nobody outside has seen; a WAL keeps a prefix of its commits, so the state
 * after a power loss is the state at some commit after the last sync.
 */
import { statSync } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'

/**
 * Coalesces durability waits: callers share a sync that starts after every write made before
 * they asked. When a sync that completed (or the one under way) began after all of those, a
 * caller waits for nothing more (or for that one); so a message packed, a command answered or
 * an admin `GET` answered after nothing new was written costs no `fdatasync`.
 */
export class DiskSync {
  /** The sync under way, if any, and `written()` when it started: the writes it makes durable. */
  private running?: { done: Promise<void>; covers: number }
  /** The sync that follows the one under way, shared by everyone who asked meanwhile. */
  private queued?: Promise<void>
  /** The writes made durable by the syncs that completed (`written()` when the latest of them started). */
  private durable = 0

  /**
   * @param sync makes everything written before it was called durable (one `fdatasync`).
   * @param written how many statements that may have written ran so far (never decreases:
   *   `SqliteConnection.writes`); writes it does not count are never waited for.
   */
  constructor(
    private readonly sync: () => Promise<void>,
    private readonly written: () => number,
  ) {}

  /**
   * Resolves once every commit made before the call is durable: at once when no write came after
   * the start of the last sync that completed; with the sync under way when no write came after
   * its start; otherwise with the next one, which every caller arriving meanwhile shares.
   * @throws the sync's error (the disk refused to sync: the commits may not be durable)
   */
  wait(): Promise<void> {
    const needed = this.written()
    if (needed <= this.durable) return Promise.resolve()
    if (!this.running) return this.start()
    if (this.running.covers >= needed) return this.running.done
    this.queued ??= this.running.done
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined
        return this.start()
      })
    return this.queued
  }

  private start(): Promise<void> {
    const covers = this.written()
    const done: Promise<void> = this.sync()
      .then(() => {
        this.durable = Math.max(this.durable, covers)
      })
      .finally(() => {
        if (this.running?.done === done) this.running = undefined
      })
    this.running = { done, covers }
    return done
  }
}

/**
 * The WAL file of the SQLite database `file` (`<file>-wal`), kept open between syncs: opening and
 * closing it at every sync cost two more hops through libuv's thread pool, each waiting for a
 * turn of a busy event loop (bench/README.md, "chat-round-trip"). SQLite keeps the WAL file
 * while a connection is open and reuses it after each checkpoint; should it be replaced (deleted
 * and made again), the path names another file than the one kept open, so each sync compares the
 * two (a `stat` on the event loop, a few microseconds) and opens the new one.
 */
export class WalFile {
  private readonly path: string
  private handle?: FileHandle
  /** Device and inode of the file `handle` is open on. */
  private identity?: { dev: number; ino: number }
  private closed = false

  /** @param file the SQLite database file; its WAL is `<file>-wal`. */
  constructor(file: string) {
    this.path = `${file}-wal`
  }

  /**
   * Makes everything written to the WAL file so far durable (`fdatasync`, off the event loop);
   * nothing to do while there is no WAL file, or once closed (closing the database checkpoints
   * the WAL into the database file, and syncs it). Calls must not overlap (`DiskSync` runs one
   * at a time).
   * @throws the file system's error when the file cannot be opened or synced
   */
  async sync(): Promise<void> {
    const current = statSync(this.path, { throwIfNoEntry: false })
    if (!current || this.closed) return this.release()
    if (!this.handle || this.identity?.dev !== current.dev || this.identity.ino !== current.ino) {
      await this.release()
      const handle = await open(this.path, 'r')
      const { dev, ino } = await handle.stat()
      if (this.closed) return handle.close()
      this.handle = handle
      this.identity = { dev, ino }
    }
    await this.handle.datasync()
  }

  /** Closes the kept file, after a sync under way; later syncs do nothing. */
  async close(): Promise<void> {
    this.closed = true
    await this.release()
  }

  private async release(): Promise<void> {
    const handle = this.handle
    this.handle = undefined
    this.identity = undefined
    await handle?.close()
  }
}
