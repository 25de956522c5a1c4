/**
 * Keyset pages of newest-first lists, for any table with `created_at` (ms since the epoch) and a
 * unique `id`: the order is `created_at DESC, id DESC`, and a page continues after the last row of
 * the one before, so rows made or deleted while a client pages neither repeat nor shift the
 * pages, and rows made in the same millisecond are told apart by their ids. The admin API's lists
 * serve them (`admin/paging.ts`).
 */
import { sql, type SQL } from 'drizzle-orm'

/** Where a row sits in a newest-first list: its creation time (ms since the epoch) and its id, which breaks ties. */
export interface RowPosition {
  createdAt: number
  id: string
}

/** What a page asks for: at most `limit` rows (negative: all of them), those after `after`. */
export interface PageRequest {
  limit: number
  after?: RowPosition
}

/** One page of a newest-first list, and where the next page starts (none after the last). */
export interface Page<T> {
  records: T[]
  /** The last row of this page: the next page lists those after it. */
  next?: RowPosition
}

/**
 * The condition "after `position` in newest-first order" on the `created_at` and `id` columns of
 * `table` (a table name or alias of the statement), for either dialect.
 */
export function afterPosition(table: string, position: RowPosition): SQL {
  const createdAt = sql.raw(`${table}.created_at`)
  const id = sql.raw(`${table}.id`)
  return sql`(${createdAt} < ${position.createdAt} OR (${createdAt} = ${position.createdAt} AND ${id} < ${position.id}))`
}

/** The row limit to read for a page of `limit` (negative: a whole list): one more, which tells whether a next page exists. */
export function readLimit(limit: number): number {
  return limit < 0 ? -1 : limit + 1
}

/**
 * The page of at most `limit` (negative: all) of `rows`, read newest first with `readLimit(limit)`,
 * with the next page's start when the extra row came back.
 */
export function cutPage<T>(rows: T[], limit: number, positionOf: (row: T) => RowPosition): Page<T> {
  if (limit < 0 || rows.length <= limit) return { records: rows }
  return { records: rows.slice(0, limit), next: positionOf(rows[limit - 1]!) }
}
