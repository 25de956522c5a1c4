/**
 * How Credo tag values become rows of the tag index (`credo_record_tags`), for records being
 * stored and for the values of a query alike, so the two always compare equal.
 *
 * Credo's tag values are `string | boolean | string[] | null | undefined` (`TagValue` in
 * `@credo-ts/core` `storage/BaseRecord`). Askar (`packages/askar/src/storage/utils.ts`,
 * `transformFromRecordTagValues`) keeps the three real kinds apart: a boolean is `'1'`/`'0'`, a
 * string `'1'`/`'0'` is escaped so it does not read as a boolean, and each array element is its
 * own tag `name:element = '1'`; null is no tag at all. Here the kind is a column instead of an
 * escape, so no value needs rewriting: `{ isFoo: true }` matches a stored `true` and never the
 * string `'true'`, and `{ roles: ['a'] }` matches an array tag holding `'a'`, never a string
 * tag `'a'`.
 */
import { CredoError, type TagsBase, type TagValue } from '@credo-ts/core'

/** `string`: a string tag; `boolean`: a boolean tag (`'true'`/`'false'`); `item`: one array element. */
export type TagKind = 'string' | 'boolean' | 'item'

/** One row of the tag index, without its record key. */
export interface TagEntry {
  name: string
  kind: TagKind
  value: string
}

/**
 * The index rows for one tag: none for null or undefined, one for a string or a boolean, one
 * per distinct element for an array (none for an empty array, as in Askar).
 *
 * @throws {CredoError} if the value is not a Credo `TagValue` (e.g. a number, or an array
 *   holding something other than strings).
 */
export function tagEntries(name: string, value: TagValue): TagEntry[] {
  if (value === null || value === undefined) return []
  if (typeof value === 'string') return [{ name, kind: 'string', value }]
  if (typeof value === 'boolean') return [{ name, kind: 'boolean', value: String(value) }]
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return [...new Set(value)].map((item) => ({ name, kind: 'item', value: item }))
  }
  throw new CredoError(`Tag '${name}' has a value storage cannot hold: ${JSON.stringify(value)}`)
}

/** All index rows for a record's tags (`record.getTags()`). @throws {CredoError} as `tagEntries`. */
export function recordTagEntries(tags: TagsBase): TagEntry[] {
  return Object.entries(tags).flatMap(([name, value]) => tagEntries(name, value))
}

/** The tags as kept in `credo_records.tags`: null and undefined values dropped (no tag). */
export function storedTags(tags: TagsBase): TagsBase {
  return Object.fromEntries(Object.entries(tags).filter(([, value]) => value !== null && value !== undefined)) as TagsBase
}
