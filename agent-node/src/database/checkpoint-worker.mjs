// The worker thread of `BackgroundCheckpoints` (wal-checkpoints.ts): its own SQLite connection to
// the agent's database file, running a PASSIVE checkpoint every `intervalMs` (SQLite
// documentation, "Write-Ahead Logging", "Checkpointing"), so the checkpoints' page copies and disk
// syncs never run on the event loop. Plain JavaScript, with no import of Parley's TypeScript: a
// worker thread does not inherit the tsx loader of the main thread, and the production bundle
// copies this file as it is (agent-node/scripts/build.ts).
//
// workerData: { file: string, intervalMs: number }. Messages to the parent: { error: string } when
// the database cannot be opened or a checkpoint fails; the thread keeps trying at each interval
// until it is closed, and reports the same error again only after `REPORT_AGAIN_MS` (a disk that
// stays full must not log four lines a second). Message from the parent: 'close' closes the
// connection and ends the thread.
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'libsql'

const { file, intervalMs } = workerData

/** How long a failure that keeps recurring goes unreported, in ms. */
const REPORT_AGAIN_MS = 60_000

/** The connection, opened on first use (an open that failed is tried again at the next interval). */
let connection
/** The last failure reported, and when (ms since the epoch); cleared by a checkpoint that works. */
let reported

function checkpoint() {
  try {
    connection ??= new Database(file)
    // PASSIVE: copies what no reader still needs and never waits for a lock, nor makes the
    // writer wait; the writer starts the WAL over when it begins a transaction with all of it
    // copied (else its own fallback threshold does, wal-checkpoints.ts)
    connection.exec('PRAGMA wal_checkpoint(PASSIVE)')
    reported = undefined
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const now = Date.now()
    if (reported?.message === message && now - reported.at < REPORT_AGAIN_MS) return
    reported = { message, at: now }
    parentPort.postMessage({ error: message })
  }
}

const timer = setInterval(checkpoint, intervalMs)

parentPort.on('message', (message) => {
  if (message !== 'close') return
  clearInterval(timer)
  connection?.close()
  parentPort.close()
})
