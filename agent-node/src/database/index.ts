/**
 * The agent's database: one connection (pool) shared by every store of agent-node (Credo
 * records, keys, and the tables added after them). SQLite through one `libsql` connection that
 * keeps its prepared statements (`sqlite.ts`) is the embedded default; PostgreSQL through `pg`
 * (node-postgres, with drizzle) when `DATABASE_URL` is set. Stores write each statement once with
 * drizzle's `sql` template, run by the helpers of `dialect.ts`. How to add a table: `README.md`
 * in this folder.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { drizzle as drizzlePg, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { redactedUrl } from '@parley/shared'
import { DiskSync, WalFile } from './disk-sync.ts'
import { SqliteConnection } from './sqlite.ts'
import { BackgroundCheckpoints, FALLBACK_AUTOCHECKPOINT_PAGES } from './wal-checkpoints.ts'

/** How long a SQLite writer waits for a lock held by another connection, in milliseconds. */
const BUSY_TIMEOUT_MS = 5_000

/** `postgres://` and `postgresql://` URLs select PostgreSQL; anything else is a SQLite path. */
const POSTGRES_URL = /^postgres(ql)?:\/\//

interface DatabaseBase {
  /** Closes the connection (SQLite) or ends the pool (PostgreSQL); a second call does nothing. */
  close(): Promise<void>
  /**
   * Resolves once every commit made so far is durable (survives a power loss). Only a SQLite
   * file opened with `syncOnCommit: false` has anything to do (`disk-sync.ts`: one `fdatasync`
   * of its WAL, off the event loop, shared by the callers waiting); PostgreSQL and SQLite's
   * default sync at each commit, and `:memory:` keeps nothing.
   * @throws when the disk refuses to sync
   */
  syncToDisk(): Promise<void>
}

/** The embedded SQLite database (a file in `DATA_DIR`, or `:memory:`). */
export interface SqliteDatabase extends DatabaseBase {
  readonly dialect: 'sqlite'
  readonly connection: SqliteConnection
}

/** A PostgreSQL database reached through a `pg.Pool`. */
export interface PostgresDatabase extends DatabaseBase {
  readonly dialect: 'postgres'
  readonly db: NodePgDatabase
  /** The pool behind `db`; a connection of its own for `LISTEN` (`dialect.ts`, `listen`). */
  readonly pool: pg.Pool
}

/**
 * The agent database, discriminated by `dialect`. Stores do not branch on it: they pass it to
 * `selectRows`, `execute`, `runAtomically` and `applySchema` (`dialect.ts`), which hold the only
 * dialect-specific code.
 */
export type Database = SqliteDatabase | PostgresDatabase

/** The SQL dialects agent-node runs on. */
export type Dialect = Database['dialect']

export interface OpenDatabaseOptions {
  /**
   * Called when an idle pooled PostgreSQL connection fails (e.g. the server restarted). The
   * pool drops that connection and opens a new one for the next query, so this is only worth
   * a log line. Without it such errors are ignored (they would otherwise end the process).
   */
  onConnectionError?: (error: Error) => void
  /**
   * SQLite file only. `true` (the default): every commit waits for the disk (`synchronous =
   * FULL`). `false`: commits do not wait (`synchronous = NORMAL`, one connection so the setting
   * holds), and the caller makes them durable with `syncToDisk` before anything outside the
   * process learns of them (agent-node: `disk-sync.ts`).
   */
  syncOnCommit?: boolean
  /**
   * SQLite file only. `true`: WAL checkpoints run in a worker thread (`wal-checkpoints.ts`), not
   * on the event loop inside a commit; `onCheckpointError` hears when they fail. Default `false`:
   * SQLite's automatic checkpoint.
   */
  checkpointOffThread?: boolean
  /** Called when a checkpoint of the thread above fails; it is tried again, so this is worth a log line. */
  onCheckpointError?: (error: Error) => void
}

async function openSqlite(path: string, options: OpenDatabaseOptions): Promise<SqliteDatabase> {
  const syncOnCommit = options.syncOnCommit ?? true
  let location = ':memory:'
  if (path !== ':memory:') {
    const file = resolve(path)
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
    // Readable by the agent's user only. SQLite gives the -wal and -shm files it creates the
    // database file's mode; those left by an older version are fixed here too.
    closeSync(openSync(file, 'a', 0o600))
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(file + suffix)) chmodSync(file + suffix, 0o600)
    }
    location = file
  }
  const deferSync = !syncOnCommit && location !== ':memory:'
  const connection = new SqliteConnection(location, { busyTimeoutMs: BUSY_TIMEOUT_MS })
  try {
    if (location !== ':memory:') connection.exec('PRAGMA journal_mode = WAL')
    if (deferSync) connection.exec('PRAGMA synchronous = NORMAL')
    connection.exec('PRAGMA foreign_keys = ON')
  } catch (error) {
    connection.close() // not a database (or unreadable): leave no handle open
    throw error
  }
  const walFile = deferSync ? new WalFile(location) : undefined
  const diskSync =
    walFile &&
    new DiskSync(
      () => walFile.sync(),
      () => connection.writes,
    )
  let checkpoints: BackgroundCheckpoints | undefined
  if (options.checkpointOffThread && location !== ':memory:') {
    connection.exec(`PRAGMA wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`)
    checkpoints = BackgroundCheckpoints.start(location, { onError: options.onCheckpointError })
  }
  return {
    dialect: 'sqlite',
    connection,
    close: async () => {
      await checkpoints?.close()
      checkpoints = undefined
      await walFile?.close()
      connection.close()
    },
    syncToDisk: () => diskSync?.wait() ?? Promise.resolve(),
  }
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<PostgresDatabase> {
  const pool = new pg.Pool({ connectionString: url })
  pool.on('error', (error) => options.onConnectionError?.(error))
  try {
    // fail at start-up, not at the first request, when the server is unreachable
    await pool.query('SELECT 1')
  } catch (error) {
    await pool.end()
    const reason = error instanceof Error ? error.message : String(error)
    throw new Error(`Cannot connect to PostgreSQL at ${redactedUrl(url)}: ${reason}`, { cause: error })
  }
  return {
    dialect: 'postgres',
    db: drizzlePg(pool),
    pool,
    syncToDisk: () => Promise.resolve(), // each commit is durable (the server's synchronous_commit)
    // idempotent, as libsql's close
    close: async () => {
      if (!pool.ending) await pool.end()
    },
  }
}

/**
 * Opens the agent database at `location`:
 * - a `postgres://user:password@host:port/database` (or `postgresql://`) URL: PostgreSQL, a
 *   pool of connections (node-postgres defaults: at most 10). Connection parameters in the
 *   URL's query (`?sslmode=require`, `?options=-c search_path=…`) are honoured;
 * - otherwise a SQLite file path (created with its folder if missing, folder 0700, files 0600)
 *   or `:memory:`; files run in WAL mode so readers never wait on the writer.
 *
 * @throws Error naming the server (password redacted) if PostgreSQL cannot be reached; the
 *   driver's error if the SQLite file cannot be opened.
 */
export async function openDatabase(location: string, options: OpenDatabaseOptions = {}): Promise<Database> {
  return POSTGRES_URL.test(location) ? openPostgres(location, options) : openSqlite(location, options)
}
