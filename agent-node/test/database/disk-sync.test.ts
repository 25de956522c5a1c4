/**
 * Group commit (`database/disk-sync.ts`): callers share syncs, a caller never settles for a sync
 * that started before its last write, and one who wrote nothing since a sync began waits for no
 * new one; agent-node's SQLite file commits without waiting for the
 * disk (`synchronous = NORMAL`) and syncs its WAL on demand, while other openings keep SQLite's
 * sync at every commit; the WAL file stays open between syncs, and a replaced one is opened
 * again. Real SQLite files; the sync function of the first test is a stand-in that counts calls.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { execute, selectRows } from '../../src/database/dialect.ts'
import { DiskSync, WalFile } from '../../src/database/disk-sync.ts'
import { openDatabase, type Database } from '../../src/database/index.ts'

/**
 * A DiskSync over a stand-in sync that finishes when the test says (`started[i]()` ends the i-th)
 * and a write counter the test moves (`write()`), one write made before the first call.
 */
function heldSyncs() {
  const started: Array<() => void> = []
  let writes = 1
  const sync = new DiskSync(
    () => new Promise<void>((resolve) => started.push(resolve)),
    () => writes,
  )
  return { sync, started, write: () => void writes++ }
}

describe('DiskSync', () => {
  it('shares one sync among the callers waiting, and starts a new one for those who wrote during a sync', async () => {
    const { sync, started, write } = heldSyncs()
    const first = sync.wait()
    expect(started).toHaveLength(1)
    // written while the first sync runs: it may have begun before these commits
    write()
    let laterDone = 0
    const later = [sync.wait(), sync.wait(), sync.wait()].map((waiting) => waiting.then(() => laterDone++))
    expect(started).toHaveLength(1)
    started[0]!()
    await first
    await new Promise((resolve) => setImmediate(resolve))
    expect(laterDone).toBe(0)
    expect(started).toHaveLength(2) // one more sync, for all three
    started[1]!()
    await Promise.all(later)
    expect(laterDone).toBe(3)
    // something written, nothing under way: the next caller starts one at once
    write()
    const next = sync.wait()
    expect(started).toHaveLength(3)
    started[2]!()
    await next
  })

  it('syncs nothing for a caller whose writes the last sync (or the one under way) began after', async () => {
    const { sync, started, write } = heldSyncs()
    const first = sync.wait()
    // nothing written since it started: the sync under way covers this caller too
    const sameSync = sync.wait()
    started[0]!()
    await Promise.all([first, sameSync])
    expect(started).toHaveLength(1)
    // still nothing written: already durable
    await sync.wait()
    expect(started).toHaveLength(1)
    write()
    const afterWrite = sync.wait()
    expect(started).toHaveLength(2)
    started[1]!()
    await afterWrite
  })

  it('passes a failed sync to its callers, and the next caller starts afresh', async () => {
    let calls = 0
    const sync = new DiskSync(
      async () => {
        calls++
        if (calls === 1) throw new Error('EIO')
      },
      () => 1,
    )
    await expect(sync.wait()).rejects.toThrow('EIO')
    // the failed sync made nothing durable
    await expect(sync.wait()).resolves.toBeUndefined()
    expect(calls).toBe(2)
  })
})

describe('SQLite commits and the disk', () => {
  let dir: string
  let database: Database | undefined
  afterEach(async () => {
    await database?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const synchronous = async (db: Database) => (await selectRows<{ synchronous: number }>(db, sql`PRAGMA synchronous`))[0]?.synchronous

  it('syncOnCommit: false commits without waiting (NORMAL) and syncs the WAL on demand', async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-disk-sync-'))
    database = await openDatabase(join(dir, 'agent.sqlite'), { syncOnCommit: false })
    expect(await synchronous(database)).toBe(1)
    await execute(database, sql`CREATE TABLE t (v INTEGER)`)
    await execute(database, sql`INSERT INTO t VALUES (1)`)
    await expect(Promise.all([database.syncToDisk(), database.syncToDisk()])).resolves.toBeDefined()
    // the setting holds for every statement: one connection
    await Promise.all(Array.from({ length: 20 }, (_, i) => execute(database!, sql`INSERT INTO t VALUES (${i})`)))
    expect(await synchronous(database)).toBe(1)
  })

  it('syncs the WAL only when a statement that may write ran since the last sync began', async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-disk-sync-'))
    database = await openDatabase(join(dir, 'agent.sqlite'), { syncOnCommit: false })
    const syncs = vi.spyOn(WalFile.prototype, 'sync')
    try {
      await execute(database, sql`CREATE TABLE t (v INTEGER)`)
      await database.syncToDisk()
      expect(syncs).toHaveBeenCalledTimes(1)
      await selectRows(database, sql`SELECT v FROM t`)
      await database.syncToDisk()
      expect(syncs).toHaveBeenCalledTimes(1) // a read: nothing to sync
      await execute(database, sql`INSERT INTO t VALUES (1)`)
      await database.syncToDisk()
      expect(syncs).toHaveBeenCalledTimes(2)
      await selectRows(database, sql`INSERT INTO t VALUES (2) RETURNING v`) // a write that returns rows
      await database.syncToDisk()
      expect(syncs).toHaveBeenCalledTimes(3)
    } finally {
      syncs.mockRestore()
    }
  })

  it('keeps a sync at every commit by default (FULL), with nothing left for syncToDisk', async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-disk-sync-'))
    database = await openDatabase(join(dir, 'wallet.sqlite'))
    expect(await synchronous(database)).toBe(2)
    await expect(database.syncToDisk()).resolves.toBeUndefined()
  })
})

describe('WalFile', () => {
  let dir: string
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  /** What this process's open file descriptors point to that is under `dir` (Linux `/proc`). */
  const openUnder = (folder: string) =>
    readdirSync('/proc/self/fd')
      .map((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`)
        } catch {
          return '' // closed meanwhile (the directory listing's own descriptor)
        }
      })
      .filter((target) => target.startsWith(folder))

  it('syncs through one kept descriptor, opens a replaced file again, and closes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-wal-file-'))
    const database = join(dir, 'agent.sqlite')
    const wal = new WalFile(database)

    await wal.sync() // no WAL file yet: nothing to open
    expect(openUnder(dir)).toEqual([])

    writeFileSync(`${database}-wal`, 'first')
    await wal.sync()
    await wal.sync()
    expect(openUnder(dir)).toEqual([`${database}-wal`])

    // deleted and made again: the kept descriptor names the old file, the next sync the new one
    rmSync(`${database}-wal`)
    writeFileSync(`${database}-wal`, 'second')
    expect(openUnder(dir)).toEqual([`${database}-wal (deleted)`])
    await wal.sync()
    expect(openUnder(dir)).toEqual([`${database}-wal`])

    await wal.close()
    expect(openUnder(dir)).toEqual([])
    await wal.sync() // closed: does nothing, opens nothing
    expect(openUnder(dir)).toEqual([])
  })
})
