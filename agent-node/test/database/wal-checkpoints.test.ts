/**
 * WAL checkpoints off the event loop (`database/wal-checkpoints.ts`): with `checkpointOffThread`
 * the agent's connection checkpoints only past its high fallback threshold, and a worker thread
 * copies the WAL into the database file meanwhile; closing ends the thread before the agent's
 * connection; a failing checkpoint is reported, once while it keeps failing. Real SQLite files and
 * a real worker thread.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { execute, runAtomically, selectRows } from '../../src/database/dialect.ts'
import { openDatabase, type Database } from '../../src/database/index.ts'
import { BackgroundCheckpoints, FALLBACK_AUTOCHECKPOINT_PAGES } from '../../src/database/wal-checkpoints.ts'
import { eventually } from '../support/conditions.ts'

/** Waits until `condition` holds (polled every 50 ms), failing after 10 s. */
const holds = (condition: () => boolean) => eventually(() => expect(condition()).toBe(true))

describe('WAL checkpoints in a worker thread', () => {
  const dirs: string[] = []
  const databases: Database[] = []
  const newFile = () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-checkpoints-'))
    dirs.push(dir)
    return join(dir, 'agent.sqlite')
  }

  afterEach(async () => {
    for (const database of databases.splice(0)) await database.close()
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it("copies the WAL into the database file while the agent's connection only writes", async () => {
    const file = newFile()
    const database = await openDatabase(file, { syncOnCommit: false, checkpointOffThread: true })
    databases.push(database)
    const [setting] = await selectRows<{ wal_autocheckpoint: number }>(database, sql`PRAGMA wal_autocheckpoint`)
    expect(setting?.wal_autocheckpoint).toBe(FALLBACK_AUTOCHECKPOINT_PAGES)
    const before = statSync(file).size
    await execute(database, sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
    // about 2 MiB in 8 commits: some 500 pages, far below the connection's own threshold
    for (let batch = 0; batch < 8; batch++) {
      const rows = Array.from({ length: 64 }, (_, i) => sql`INSERT INTO notes (body) VALUES (${`${batch}-${i} `.padEnd(4_000, 'x')})`)
      await runAtomically(database, rows)
    }
    await holds(() => statSync(file).size >= before + 2_000_000)
  })

  it('ends the thread on close once it has closed its connection; the data stays', async () => {
    const file = newFile()
    const database = await openDatabase(file, { syncOnCommit: false })
    databases.push(database)
    await execute(database, sql`CREATE TABLE notes (body TEXT)`)
    await execute(database, sql`INSERT INTO notes (body) VALUES (${'kept'.padEnd(100_000, 'x')})`)
    const before = statSync(file).size
    const checkpoints = BackgroundCheckpoints.start(file, { intervalMs: 20 })
    await holds(() => statSync(file).size >= before + 100_000)
    expect(await checkpoints.close()).toBe(0) // exited on its own, not ended by `terminate`
    expect(await selectRows(database, sql`SELECT substr(body, 1, 4) AS head FROM notes`)).toEqual([{ head: 'kept' }])
  })

  it('reports a checkpoint that keeps failing once, not at every attempt', async () => {
    const file = newFile()
    writeFileSync(file, 'not a database, but a text file long enough to have a header '.repeat(200))
    const errors: Error[] = []
    const checkpoints = BackgroundCheckpoints.start(file, { intervalMs: 20, onError: (error) => errors.push(error) })
    try {
      await holds(() => errors.length >= 1)
      // some fifteen more failing attempts: the same failure, not reported again
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(errors).toHaveLength(1)
      expect(errors[0]?.message).toMatch(/^WAL checkpoint failed: .*not a database/)
    } finally {
      await checkpoints.close()
    }
  })
})
