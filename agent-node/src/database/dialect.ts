/**
 * Everything that differs between SQLite and PostgreSQL for agent-node's stores, in one place:
 * how a statement runs and what it returns, atomic writes, schema creation, and constraint
 * error codes. Stores write their statements once with drizzle's `sql` template (values are
 * bound parameters; drizzle numbers them `$1…` for PostgreSQL, `?` for SQLite) and run them
 * with these functions. The SQL itself is the common subset of both: see `README.md`.
 */
import { sql, type SQL } from 'drizzle-orm'
import pg from 'pg'
import type { Database } from './index.ts'
import { SqliteError, type StatementResult } from './sqlite.ts'

/**
 * Runs a query and returns its rows as objects keyed by column name. The caller names the row
 * type; columns come back as the driver gives them (TEXT as string; PostgreSQL BIGINT as a
 * string, SQLite INTEGER as a number, so select BIGINT columns only to compare or order).
 */
export async function selectRows<Row extends Record<string, unknown>>(database: Database, query: SQL): Promise<Row[]> {
  if (database.dialect === 'sqlite') return database.connection.all<Row>(query)
  return (await database.db.execute<Row>(query)).rows as Row[]
}

/** Runs one statement and returns how many rows it changed. @throws the driver's error. */
export async function execute(database: Database, statement: SQL): Promise<number> {
  if (database.dialect === 'sqlite') return database.connection.run(statement)
  return (await database.db.execute(statement)).rowCount ?? 0
}

/**
 * Runs the statements as one transaction.
 *
 * SQLite: `SqliteConnection.batch`, `BEGIN` to `COMMIT` on the one connection without yielding to
 * the event loop. An interactive transaction would hold the connection across `await`s, and every
 * other statement of the process would run inside it. PostgreSQL: `db.transaction` on a client of its own from the pool (READ
 * COMMITTED), so concurrent writers queue on row locks, not on each other's connections.
 */
async function runBatch(database: Database, statements: readonly SQL[]): Promise<StatementResult[]> {
  if (statements.length === 0) return []
  if (database.dialect === 'sqlite') return database.connection.batch(statements)
  return database.db.transaction(async (tx) => {
    const results: StatementResult[] = []
    for (const statement of statements) {
      const result = await tx.execute(statement)
      results.push({ changed: result.rowCount ?? 0, rows: result.rows })
    }
    return results
  })
}

/**
 * Runs the statements as one transaction (see `runBatch` above for how, per dialect) and returns
 * how many rows each one changed.
 *
 * @throws the driver's error if a statement fails; nothing is then written.
 */
export async function runAtomically(database: Database, statements: readonly SQL[]): Promise<number[]> {
  return (await runBatch(database, statements)).map((result) => result.changed)
}

/**
 * Runs the statements as one transaction, as `runAtomically`, and returns the rows each one
 * returned (`RETURNING …`; none for a statement without it), typed and converted as in
 * `selectRows`.
 *
 * @throws the driver's error if a statement fails; nothing is then written.
 */
export async function returnAtomically<Row extends Record<string, unknown>>(
  database: Database,
  statements: readonly SQL[],
): Promise<Row[][]> {
  return (await runBatch(database, statements)).map((result) => result.rows as Row[])
}

/**
 * Key of the PostgreSQL advisory lock that serializes schema changes: two processes (or two
 * stores of one process) running `CREATE TABLE IF NOT EXISTS` on the same table at once would
 * otherwise race in the catalog and one fail with a unique violation.
 */
const SCHEMA_LOCK_KEY = 0x7061726c // "parl"

/**
 * A store's schema as versioned, forward-only migrations: `steps[i]` takes the store from
 * version `i` to `i + 1` (statements in the portable SQL of `README.md`). Step 1 is the schema
 * as first released, written `CREATE … IF NOT EXISTS` so that it also adopts databases made
 * before versioning; later steps are plain DDL (`ALTER TABLE … ADD COLUMN`, `CREATE TABLE`, data
 * updates). A released step never changes: a change is a new step at the end.
 */
export interface Schema {
  /** The store's name in `schema_migrations` (snake_case, unique among stores). */
  readonly name: string
  readonly steps: readonly (readonly string[])[]
}

/** A migration step failed (or the database is newer than this code); start-up should stop. */
export class MigrationError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'MigrationError'
  }
}

/** Where every store records the steps applied: one row per store and version. */
const MIGRATIONS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS schema_migrations (
    store TEXT NOT NULL,
    version BIGINT NOT NULL,
    applied_at BIGINT NOT NULL,
    PRIMARY KEY (store, version)
  )`

/** The statements prefixed, on PostgreSQL, by the schema lock held until the transaction ends. */
function underSchemaLock(database: Database, statements: readonly SQL[]): SQL[] {
  return database.dialect === 'postgres' ? [sql`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`, ...statements] : [...statements]
}

/** The version `schema_migrations` records for `store`: 0 when none. */
export async function schemaVersion(database: Database, store: string): Promise<number> {
  const [row] = await selectRows<{ version: number | string | null }>(
    database,
    sql`SELECT MAX(version) AS version FROM schema_migrations WHERE store = ${store}`,
  )
  return Number(row?.version ?? 0)
}

/**
 * Brings the store's tables to the newest version of `schema`: runs the steps after the version
 * recorded in `schema_migrations` (created if missing), in order, each in a transaction of its
 * own with the row recording it (first, so a concurrent runner that applied the same step makes
 * this one roll back and re-read); on PostgreSQL under an advisory lock. A database made before
 * versioning is at version 0 and gets step 1, whose `IF NOT EXISTS` keeps its tables and rows.
 * Safe to call on every start, from several processes at once.
 *
 * @throws MigrationError naming the store and step when a step fails (that step is rolled back:
 *   the database stays at the previous version) or when the database is at a version newer
 *   than `schema` (written by a newer agent-node: downgrades are not supported).
 */
export async function applySchema(database: Database, schema: Schema): Promise<void> {
  await runAtomically(database, underSchemaLock(database, [sql.raw(MIGRATIONS_TABLE_SQL)]))
  const newest = schema.steps.length
  for (;;) {
    const current = await schemaVersion(database, schema.name)
    if (current === newest) return
    if (current > newest) {
      throw new MigrationError(
        `The database holds version ${current} of the ${schema.name} tables, newer than this agent-node knows (${newest}): ` +
          'it was upgraded by a newer release; run that release or restore a backup taken before the upgrade',
      )
    }
    const version = current + 1
    const statements = [
      sql`INSERT INTO schema_migrations (store, version, applied_at) VALUES (${schema.name}, ${version}, ${Date.now()})`,
      ...schema.steps[current]!.map((statement) => sql.raw(statement)),
    ]
    try {
      await runAtomically(database, underSchemaLock(database, statements))
    } catch (error) {
      // Another process applied this step meanwhile: read the version again.
      if (constraintViolation(error) === 'unique' && (await schemaVersion(database, schema.name)) >= version) continue
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)
      throw new MigrationError(
        `Migration ${version} of the ${schema.name} tables failed and was rolled back (the database stays at version ${current}): ${reason}`,
        { cause: error },
      )
    }
  }
}

/** Which constraint a failed write broke, as far as the stores care. */
export type ConstraintViolation = 'unique' | 'foreign-key'

const violationsBySqliteCode: Record<string, ConstraintViolation> = {
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
}

/** PostgreSQL SQLSTATE codes (Appendix A, "PostgreSQL Error Codes"), class 23. */
const violationsBySqlState: Record<string, ConstraintViolation> = {
  '23505': 'unique', // unique_violation
  '23503': 'foreign-key', // foreign_key_violation
}

/**
 * Classifies a write error by the driver error anywhere in its `cause` chain (drizzle wraps
 * driver errors in `DrizzleQueryError`): the SQLite extended result code of libsql's `SqliteError`, or
 * the SQLSTATE of a `pg.DatabaseError`.
 *
 * @returns the violation, or `undefined` for any other error.
 */
export function constraintViolation(error: unknown): ConstraintViolation | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof SqliteError) return violationsBySqliteCode[cause.code]
    if (cause instanceof pg.DatabaseError && cause.code !== undefined) return violationsBySqlState[cause.code]
  }
  return undefined
}

/**
 * Tells the other processes on the database that something happened (`channel`, a short
 * `payload`): PostgreSQL `NOTIFY` (sent when the statement commits; every listener, this
 * process's included, gets it). SQLite has one process per database (the data folder's lock), so
 * there is nobody to tell: nothing is sent.
 */
export async function notify(database: Database, channel: string, payload: string): Promise<void> {
  if (database.dialect === 'sqlite') return
  await execute(database, sql`SELECT pg_notify(${channel}, ${payload})`)
}

/** How long a listener waits before it reconnects after its connection failed, in milliseconds. */
const LISTEN_RETRY_MS = 1_000

/**
 * Calls `onPayload` with the payload of each `notify(database, channel, …)` from any process
 * (PostgreSQL `LISTEN` on a pooled connection kept for it; re-established after a failure, with
 * `onError` told). On SQLite nothing ever arrives (see `notify`). Notifications sent while the
 * connection was down are lost: listeners are a way to be quick, never the only way to learn of
 * work.
 * @returns stops listening and gives the connection back.
 */
export function listen(
  database: Database,
  channel: string,
  onPayload: (payload: string) => void,
  onError: (error: Error) => void,
): () => Promise<void> {
  if (database.dialect === 'sqlite') return async () => {}
  const { pool } = database
  let client: { connection: pg.PoolClient; giveBack: (error?: Error | true) => boolean } | undefined
  let stopped = false
  let retry: NodeJS.Timeout | undefined
  const onNotification = (message: pg.Notification) => {
    if (message.channel === channel) onPayload(message.payload ?? '')
  }
  const failed = (error: Error) => {
    onError(error)
    if (!stopped) retry = setTimeout(() => void connect(), LISTEN_RETRY_MS)
  }
  /**
   * Holds `connection` for listening. Its `giveBack` returns it to the pool once, without this
   * listener's handlers (a connection the server ends later, idle in the pool, is the pool's to
   * report), and says whether this call was the one that did.
   */
  const hold = (connection: pg.PoolClient) => {
    let given = false
    const onConnectionError = (error: Error) => {
      if (held.giveBack(error)) failed(error)
    }
    const held = {
      connection,
      giveBack: (error?: Error | true) => {
        if (given) return false
        given = true
        connection.off('notification', onNotification)
        connection.off('error', onConnectionError)
        if (client === held) client = undefined
        connection.release(error)
        return true
      },
    }
    connection.on('notification', onNotification)
    connection.on('error', onConnectionError)
    return held
  }
  const connect = async () => {
    if (stopped) return
    let held: ReturnType<typeof hold> | undefined
    try {
      held = hold(await pool.connect())
      await held.connection.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
      client = held
      if (stopped) await release()
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error))
      // a connection whose error event gave it back was reported there
      if (!held || held.giveBack(failure)) failed(failure)
    }
  }
  const release = async () => {
    const held = client
    client = undefined
    if (!held) return
    held.connection.off('notification', onNotification)
    try {
      await held.connection.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`)
      held.giveBack()
    } catch (error) {
      held.giveBack(error instanceof Error ? error : true)
    }
  }
  void connect()
  return async () => {
    stopped = true
    clearTimeout(retry)
    await release()
  }
}
