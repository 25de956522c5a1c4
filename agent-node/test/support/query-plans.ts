/** What SQLite plans for, and returns to, the statements a piece of agent-node really runs. */
import { type SQL, sql } from 'drizzle-orm'
import { vi } from 'vitest'
import type { SqliteDatabase } from '../../src/database/index.ts'

/**
 * Runs `run`, capturing every statement that reads rows through `database`'s connection
 * (`all`, which `selectRows` uses, `RETURNING` statements included), and returns the
 * `EXPLAIN QUERY PLAN` of each, one line per step (`SCAN …`, `SEARCH … USING INDEX …`,
 * `USE TEMP B-TREE …`).
 */
export async function queryPlans(database: SqliteDatabase, run: () => Promise<unknown>): Promise<string[][]> {
  const { connection } = database
  const all = connection.all.bind(connection)
  const queries: SQL[] = []
  const spy = vi.spyOn(connection, 'all').mockImplementation((query: SQL) => {
    queries.push(query)
    return all(query)
  })
  try {
    await run()
  } finally {
    spy.mockRestore()
  }
  return queries.map((query) => all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${query}`).map((step) => step.detail))
}

/**
 * Runs `run`, capturing the rows that every statement reading rows through `database`'s
 * connection (`all`, `RETURNING` statements included) returned: one array per statement, in order.
 */
export async function rowsRead(database: SqliteDatabase, run: () => Promise<unknown>): Promise<Record<string, unknown>[][]> {
  const { connection } = database
  const all = connection.all.bind(connection)
  const results: Record<string, unknown>[][] = []
  const spy = vi.spyOn(connection, 'all').mockImplementation((query: SQL) => {
    const rows = all(query)
    results.push(rows)
    return rows
  })
  try {
    await run()
  } finally {
    spy.mockRestore()
  }
  return results
}
