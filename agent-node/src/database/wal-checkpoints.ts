/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that
 * crosses `wal_autocheckpoint` pages (1,000 by default), on the connection that commits: agent-node's
 * own connection, on the event loop. It copies those pages into the database file and syncs the
 * WAL and the database file (SQLite documentation, "Write-Ahead Logging", "Checkpointing", and
 * "PRAGMA synchronous"), and every DIDComm message, tunnel frame and admin request waited
 * meanwhile: 3–5 ms about every 30 chat round trips on the build machine's disk, longer where a
 * disk sync is slower (bench/README.md, "chat-round-trip").
 *
 * `BackgroundCheckpoints` runs them in a worker thread instead, on a connection of its own
 * (`checkpoint-worker.mjs`): a PASSIVE checkpoint every `intervalMs`, which neither waits for nor
 * blocks the writer, who starts the WAL over once all of it was copied. The agent's connection
 * keeps a much higher `wal_autocheckpoint` (`FALLBACK_AUTOCHECKPOINT_PAGES`) as a fallback, so the
 * WAL stays bounded should the thread fall behind or fail. What a checkpoint copies is durable
 * before it is copied (it syncs the WAL first), so group commit (`disk-sync.ts`) is unchanged.
 */
import { Worker } from 'node:worker_threads'

/** How often the worker thread checkpoints, in ms; one with nothing to copy costs it about 0.3 ms. */
export const CHECKPOINT_INTERVAL_MS = 250

/**
 * The agent connection's own `wal_autocheckpoint` (pages of 4 KiB) while the thread runs: ten times
 * SQLite's default, reached only when the thread falls behind or is gone.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000

/** How long `close` waits for the thread to close its connection before ending it, in ms. */
const CLOSE_TIMEOUT_MS = 5_000

/** Options of `BackgroundCheckpoints.start`. */
export interface BackgroundCheckpointOptions {
  /** Between checkpoints, in ms (default `CHECKPOINT_INTERVAL_MS`). */
  intervalMs?: number
  /**
   * Called when the thread cannot open the database or a checkpoint fails (it tries again at the
   * next interval; the same failure is reported again after a minute at the earliest), or the
   * thread itself fails (the fallback then checkpoints on the agent's connection). Without it such
   * errors are ignored.
   */
  onError?: (error: Error) => void
}

/** A worker thread checkpointing one SQLite database file in WAL mode. */
export class BackgroundCheckpoints {
  /** The thread's exit code, once it has exited. */
  private readonly exited: Promise<number>

  private constructor(private readonly worker: Worker) {
    this.exited = new Promise((resolve) => worker.once('exit', resolve))
  }

  /**
   * Starts checkpointing the SQLite database `file` (already open in WAL mode by the caller). The
   * thread does not keep the process alive.
   */
  static start(file: string, options: BackgroundCheckpointOptions = {}): BackgroundCheckpoints {
    // beside this module: the sources' copy under tsx, the bundle's copy next to dist/main.mjs
    const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), {
      workerData: { file, intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS },
    })
    worker.unref()
    worker.on('message', (message: { error?: string }) => {
      if (message.error !== undefined) options.onError?.(new Error(`WAL checkpoint failed: ${message.error}`))
    })
    worker.on('error', (error) => options.onError?.(new Error(`WAL checkpoint thread failed: ${error.message}`, { cause: error })))
    return new BackgroundCheckpoints(worker)
  }

  /**
   * Stops checkpointing: the thread closes its connection and exits (ended after
   * `CLOSE_TIMEOUT_MS` if it does not). Resolves once it has exited; call before closing the
   * agent's own connection.
   * @returns the thread's exit code: 0 when it closed its connection and ended, 1 when it had to
   *   be ended (or had failed before)
   */
  async close(): Promise<number> {
    this.worker.postMessage('close')
    const timer = setTimeout(() => void this.worker.terminate(), CLOSE_TIMEOUT_MS)
    try {
      return await this.exited
    } finally {
      clearTimeout(timer)
    }
  }
}
