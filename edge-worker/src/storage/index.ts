/**
 * SQLite storage of a Durable Object through drizzle `durable-sqlite`, with schema migrations
 * applied before the object serves anything.
 */
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
