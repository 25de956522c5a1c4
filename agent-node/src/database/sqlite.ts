/**
 * agent-node's SQLite connection: one `libsql` connection (the better-sqlite3 API of
 * `@libsql/client`'s own engine) that keeps its prepared statements. `@libsql/client` prepares
 * every statement afresh on each call (and asks SQLite twice for its columns, and learns from a
 * thrown exception that it returns no rows), and offers no seam to keep them; on the message hot
 * path that was half of the time spent in SQLite (bench/README.md, "chat-round-trip"). Here a
 * statement is prepared once per distinct SQL text and reused, from a bounded LRU cache.
 *
 * Statements run synchronously (as libsql runs them anyway), so one connection serves the whole
 * process: a batch runs from `BEGIN` to `COMMIT` without yielding to the event loop, and nothing
 * can interleave with it. One process per SQLite file (the data folder's lock) writes, so there
 * are no other writers to wait for but a leftover process, which the busy timeout covers.
 */
import { type SQL } from 'drizzle-orm'
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core'
import Database from 'libsql'
import { LRUCache } from 'lru-cache'

/** What SQLite reports for a failed statement: `code` is the extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …). */
export const SqliteError = Database.SqliteError

/** How many distinct statements stay prepared (Credo's tag queries vary with their tags). */
const STATEMENT_CACHE_SIZE = 500

/** A bound parameter as SQLite takes it. */
type SqliteValue = string | number | bigint | Buffer | null

/** What one statement of a batch did: how many rows it changed, and the rows it returned. */
export interface StatementResult {
  changed: number
  rows: Record<string, unknown>[]
}

/** A prepared statement, and whether it returns rows (a `SELECT`, or a write with `RETURNING`). */
interface Prepared {
  statement: Database.Statement
  returnsRows: boolean
  /** A plain `SELECT`, which cannot write (anything else counts as a write: `writes`). */
  readsOnly: boolean
}

/** Turns drizzle's `sql` templates into SQLite text and parameters (`?` placeholders). */
const dialect = new SQLiteSyncDialect()

/**
 * drizzle's parameters as SQLite binds them. Booleans become 0/1 and `Date`s epoch milliseconds,
 * as `@libsql/client` stored them, so existing rows read the same.
 */
function bindable(value: unknown): SqliteValue {
  if (typeof value === 'boolean') return value ? 1 : 0
  if (value instanceof Date) return value.valueOf()
  return value as SqliteValue
}

export interface SqliteConnectionOptions {
  /** How long a write waits for a lock held by another connection, in milliseconds. */
  busyTimeoutMs: number
}

/**
 * One SQLite connection with a statement cache. `location` is a file path or `:memory:`.
 * Every method runs synchronously and throws libsql's `SqliteError` (see `SqliteError` above)
 * when SQLite refuses a statement.
 */
export class SqliteConnection {
  private readonly connection: Database.Database
  private readonly statements = new LRUCache<string, Prepared>({ max: STATEMENT_CACHE_SIZE })
  private writeCount = 0

  constructor(location: string, options: SqliteConnectionOptions) {
    this.connection = new Database(location, { timeout: options.busyTimeoutMs })
  }

  /**
   * How many statements that may have written ran on this connection so far: every one but a
   * plain `SELECT` (DDL, PRAGMAs, transactions and `… RETURNING` included), counted when it runs,
   * whether it changed anything or not. Group commit (`disk-sync.ts`) syncs only when this moved.
   */
  get writes(): number {
    return this.writeCount
  }

  /** Runs SQL text with no parameters and no result (PRAGMAs, DDL), each statement in turn. */
  exec(text: string): void {
    this.writeCount++
    this.connection.exec(text)
  }

  /** Runs a query and returns its rows as objects keyed by column name (INTEGER as number). */
  all<Row extends Record<string, unknown>>(query: SQL): Row[] {
    const { statement, params, readsOnly } = this.prepare(query)
    if (!readsOnly) this.writeCount++
    return statement.all(params) as Row[]
  }

  /** Runs one statement and returns how many rows it changed. */
  run(query: SQL): number {
    const { statement, params } = this.prepare(query)
    this.writeCount++
    return statement.run(params).changes
  }

  /**
   * Runs the statements as one transaction (`BEGIN DEFERRED` … `COMMIT`), without yielding, and
   * returns what each did (a statement that returns rows reports them, and their number as rows
   * changed). On an error it rolls back, so nothing is written, and throws that error.
   */
  batch(queries: readonly SQL[]): StatementResult[] {
    this.writeCount++
    this.runText('BEGIN DEFERRED')
    try {
      // each prepared in turn: a statement may name a table an earlier one creates
      const results = queries.map((query): StatementResult => {
        const { statement, returnsRows, params } = this.prepare(query)
        if (returnsRows) {
          const rows = statement.all(params) as Record<string, unknown>[]
          return { changed: rows.length, rows }
        }
        return { changed: statement.run(params).changes, rows: [] }
      })
      this.runText('COMMIT')
      return results
    } catch (error) {
      if (this.connection.inTransaction) this.runText('ROLLBACK')
      throw error
    }
  }

  /** Closes the connection; a second call does nothing. */
  close(): void {
    this.statements.clear()
    if (this.connection.open) this.connection.close()
  }

  private runText(text: string): void {
    this.cached(text).statement.run()
  }

  /** The query's statement, prepared or from the cache, and its parameters bound as SQLite takes them. */
  private prepare(query: SQL): Prepared & { params: SqliteValue[] } {
    const { sql: text, params } = dialect.sqlToQuery(query)
    return { ...this.cached(text), params: params.map(bindable) }
  }

  private cached(text: string): Prepared {
    let prepared = this.statements.get(text)
    if (!prepared) {
      const statement = this.connection.prepare(text)
      prepared = { statement, returnsRows: statement.reader, readsOnly: /^\s*select\b/i.test(text) }
      this.statements.set(text, prepared)
    }
    return prepared
  }
}
