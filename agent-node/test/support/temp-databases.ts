/**
 * Temporary databases for one test file, on SQLite or PostgreSQL: every test starts from empty
 * databases, and every database opened through `open` is closed after it.
 *
 * SQLite: a fresh folder per test, removed afterwards. PostgreSQL: one fresh database per test
 * file and dialect (`CREATE DATABASE parley_test_<random>` on the server named by
 * `PARLEY_TEST_POSTGRES_URL`, which `npm test` starts when unset: test/support/postgres-server.ts;
 * dropped afterwards), so files run in parallel; inside it, one
 * schema per test database (`search_path` in the connection URL). An unreachable server fails
 * the tests with a message saying so: they are never skipped.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterEach, beforeEach } from 'vitest'
import { execute } from '../../src/database/dialect.ts'
import { redactedUrl } from '@parley/shared'
import { openDatabase, type Database, type Dialect } from '../../src/database/index.ts'
import { useSuiteResource } from './suite-resource.ts'

/** Both dialects, for `describe.each(dialects)`. */
export const dialects: readonly Dialect[] = ['sqlite', 'postgres']

/**
 * The PostgreSQL server tests create their databases on (a database there to connect to first).
 *
 * @throws Error when `PARLEY_TEST_POSTGRES_URL` is unset (vitest's global setup sets it).
 */
function testPostgresUrl(): string {
  const url = process.env.PARLEY_TEST_POSTGRES_URL
  if (!url)
    throw new Error('PARLEY_TEST_POSTGRES_URL is unset: run the tests with vitest (its global setup starts a PostgreSQL) or name a server')
  return url
}

/** A database of its own on the test server. */
export interface PostgresTestDatabase {
  /** `postgres://…/parley_test_<random>` */
  readonly url: string
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>
}

async function onServer(statement: string): Promise<void> {
  const serverUrl = testPostgresUrl()
  const client = new pg.Client({ connectionString: serverUrl })
  try {
    await client.connect()
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${redactedUrl(serverUrl)} (PARLEY_TEST_POSTGRES_URL): ` +
        `${error instanceof Error ? error.message : String(error)}. The PostgreSQL tests need it: start that server, ` +
        'or unset the variable to have the tests start their own.',
      { cause: error },
    )
  }
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/**
 * Creates an empty database `parley_test_<random>` on the server of `PARLEY_TEST_POSTGRES_URL`.
 *
 * @throws Error explaining how to start PostgreSQL when the server is unreachable.
 */
export async function createPostgresTestDatabase(): Promise<PostgresTestDatabase> {
  const name = `parley_test_${randomBytes(6).toString('hex')}`
  await onServer(`CREATE DATABASE ${name}`)
  const url = new URL(testPostgresUrl())
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

/**
 * Registers hooks giving the enclosing test file (or `describe`) a PostgreSQL database of its
 * own, created before its first test and dropped after its last. If the server cannot be
 * reached, every test fails with that message (a failing `beforeAll` would only skip them).
 *
 * @returns an object whose `url` is valid inside tests and `beforeEach` hooks.
 */
export function usePostgresTestDatabase(): { readonly url: string } {
  const database = useSuiteResource(createPostgresTestDatabase, (created) => created.drop())
  return {
    get url() {
      return database().url
    },
  }
}

export interface TempDatabases {
  /** This test's folder (SQLite databases live there; on PostgreSQL it stays empty). */
  readonly dir: string
  /** This test's default database: the file `<dir>/agent.db`, or a PostgreSQL URL of its own. */
  readonly path: string
  /**
   * Opens `location` (default: this test's database), to be closed after the test.
   * `:memory:` is a new empty database on either dialect (on PostgreSQL, a new schema).
   */
  open(location?: string): Promise<Database>
  /** A location for `open` holding an empty database: a new file in `dir`, or a new schema. */
  newLocation(): Promise<string>
}

/**
 * Registers the hooks; call at the top level of a test file or of a `describe.each(dialects)`
 * block.
 */
export function useTempDatabases(prefix: string, dialect: Dialect): TempDatabases {
  let dir = ''
  let defaultLocation = ''
  const opened: Database[] = []
  const server = dialect === 'postgres' ? usePostgresTestDatabase() : undefined
  let schemas = 0

  /** A URL whose connections work in a new, empty schema. */
  async function newSchemaUrl(): Promise<string> {
    const url = new URL(server!.url)
    const schema = `s${++schemas}`
    const admin = await openDatabase(url.toString())
    try {
      await execute(admin, sql.raw(`CREATE SCHEMA ${schema}`))
    } finally {
      await admin.close()
    }
    url.searchParams.set('options', `-c search_path=${schema}`)
    return url.toString()
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix))
    defaultLocation = dialect === 'postgres' ? await newSchemaUrl() : join(dir, 'agent.db')
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
      return defaultLocation
    },
    async newLocation() {
      return dialect === 'postgres' ? newSchemaUrl() : join(dir, `${randomBytes(4).toString('hex')}.db`)
    },
    async open(location = defaultLocation) {
      const target = dialect === 'postgres' && location === ':memory:' ? await newSchemaUrl() : location
      const database = await openDatabase(target)
      opened.push(database)
      return database
    },
  }
}
