/**
 * The data folder (`DATA_DIR`): created private to the agent's user (0700), and locked by one
 * agent-node at a time, so a second process on the same folder stops before it touches the
 * database (before start-up recovery, which would otherwise redo the first one's work).
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Name of the lock file in the data folder; it holds the pid of the agent-node that owns the folder. */
export const LOCK_FILE = 'agent-node.lock'

/** Another live process holds the data folder's lock. */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError'
}

/** Whether a process with this pid is alive (signal 0 checks without sending anything). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to another user
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Creates `dir` (and parents) if missing and makes it 0700: only the agent's user may list or enter it. */
export function prepareDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
}

/**
 * Takes the data folder's lock: creates `<dir>/agent-node.lock` (0600) holding this process's
 * pid. A lock file left by a process that is gone (killed) is taken over; one held by a live
 * process, this one included (a second agent-node in the same process), is refused.
 *
 * @returns releases the lock (removes the file); call once, when the agent-node stops
 * @throws DataDirLockedError naming the folder and the pid holding it
 */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, LOCK_FILE)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 })
      return () => rmSync(file, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    let holder = Number.NaN
    try {
      holder = Number.parseInt(readFileSync(file, 'utf8'), 10)
    } catch {
      // removed in between: try again
    }
    if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
      throw new DataDirLockedError(
        `DATA_DIR ${dir} is in use by another agent-node (pid ${holder}, lock file ${file}); ` +
          'stop it first, or give this one its own DATA_DIR',
      )
    }
    rmSync(file, { force: true }) // left by a process that died
  }
  throw new DataDirLockedError(`DATA_DIR ${dir}: could not take the lock file ${file} (another agent-node is starting)`)
}
