/**
 * SQLite storage of a Durable Object through drizzle `durable-sqlite`, with schema migrations
 * applied before the object serves anything, and `inlineLimit` for LIMITs written into the SQL.
 */
import { sql } from 'drizzle-orm'
import { drizzle, type DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite'
import { migrate } from 'drizzle-orm/durable-sqlite/migrator'

export type Database<S extends Record<string, unknown>> = DrizzleSqliteDODatabase<S>

/**
 * Opens the object's database with `schema` and applies `migrations`: an append-only list of
 * SQL scripts (statements separated by `--> statement-breakpoint`), the first creating the
 * tables. Drizzle records which ones ran, so each runs once per object. Blocks the object's
 * input until done (`blockConcurrencyWhile`).
 */
export function openDatabase<S extends Record<string, unknown>>(
  ctx: DurableObjectState,
  schema: S,
  migrations: readonly string[],
): Database<S> {
  const db = drizzle(ctx.storage, { schema })
  const journal = {
    entries: migrations.map((_, idx) => ({ idx, when: idx + 1, tag: `${idx}`, breakpoints: true })),
  }
  const scripts = Object.fromEntries(migrations.map((script, idx) => [`m${String(idx).padStart(4, '0')}`, script]))
  void ctx.blockConcurrencyWhile(() => migrate(db, { journal, migrations: scripts }))
  return db
}

/**
 * `n` for drizzle's `.limit()`, written into the statement's text instead of bound. drizzle binds
 * a number as a parameter, and the SQLite in workerd expires a statement whenever its LIMIT
 * parameter is bound again (apparently its planner reads that value), so each run compiled it again
 * (`sqlite3Reprepare`: 3 % of the worker's profile in a chat turn, twice the time of the two
 * per-event reads; bench/README.md "chat-round-trip").
 * @throws RangeError when `n` is not a non-negative safe integer (it becomes SQL text).
 */
export function inlineLimit(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a LIMIT must be a non-negative integer, not ${n}`)
  // `.limit()` is typed `number | Placeholder`; an SQL chunk is written as it is (drizzle's `buildLimit`).
  return sql.raw(String(n)) as unknown as number
}
