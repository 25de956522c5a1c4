/**
 * Temporary SQLite databases for one test file: a fresh folder before each test, every database
 * opened through `open` closed and the folder removed after it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'
import { openDatabase, type Database } from '../../src/database/index.ts'

export interface TempDatabases {
  /** This test's folder. */
  readonly dir: string
  /** This test's default database file (`<dir>/agent.db`). */
  readonly path: string
  /** Opens `path` (default: this test's database), to be closed after the test. */
  open(path?: string): Promise<Database>
}

/** Registers the before/after hooks; call at the top level of a test file. */
export function useTempDatabases(prefix: string): TempDatabases {
  let dir = ''
  const opened: Database[] = []
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix))
  })
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    get dir() {
      return dir
    },
    get path() {
      return join(dir, 'agent.db')
    },
    async open(path = join(dir, 'agent.db')) {
      const database = await openDatabase(path)
      opened.push(database)
      return database
    },
  }
}
