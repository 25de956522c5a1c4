/**
 * Credo tag queries compiled to SQL over the tag index, and the one `SELECT` that lists records.
 *
 * The semantics are Askar's (Credo `packages/askar/src/storage/utils.ts`
 * `askarQueryFromSearchQuery`, Askar `askar-storage/src/wql`). Credo's in-memory test storage
 * (`tests/InMemoryStorageService.ts`) agrees except where it is unfinished: it throws on `$not`,
 * compares `null` with a stored null ("TODO: support null") and lets `$or: []` match nothing.
 *
 * - `{ name: value }` matches records whose tag equals the value, keeping strings, booleans and
 *   arrays apart (`tags.ts`); an array matches when every queried element is in the record's
 *   array; several keys must all match.
 * - `undefined` adds no condition: Credo passes optional filters that way (the proof protocol
 *   looks up `{ threadId, role, connectionId }` with `connectionId` undefined when it has none).
 * - `null` matches records without the tag: a null tag is stored as no tag, so null means
 *   "absent". (Askar instead drops null from a query, matching every record.)
 * - `$and` all, `$or` at least one, `$not` the negation, nested freely, all combined with the
 *   keys beside them by AND. `{}`, `$and: []`, `$or: []` and `[]` match everything (Askar drops
 *   empty ones); `$not: {}` therefore matches nothing.
 *
 * The tag conditions of one query node are one driving condition, `id IN (SELECT record_id FROM
 * credo_record_tags WHERE ...)`, a subquery that does not depend on the outer row, run once from
 * `credo_record_tags_lookup`, whose records the database (SQLite and PostgreSQL alike) fetches by
 * primary key; and, for each other tag, a lookup of that one tag row per candidate (`EXISTS`, on
 * the primary key of `credo_record_tags`). So a query reads the index entries of its driving
 * tag and no more: with every tag as an `IN` subquery, SQLite reads all entries of each (every
 * `role = created` DID record to find the one with a given key: 8 ms a lookup among 10,000
 * connections' DIDs, 0.24 ms this way, `npm run bench -- storage`). The driving tag is the one
 * likeliest to be rare (`drivingFirst`). `anyOf` keeps the same shape for `$or`, with the values
 * of one tag in one lookup (`value IN (...)`) and at most 500 SELECTs in one UNION. Only `$not`
 * and `null` must look at every record of the type. Values are always bound parameters, so one
 * query holds at most SQLite's 32,766 (PostgreSQL's 65,535) values.
 */
import { CredoError, type BaseRecordAny, type Query, type QueryOptions, type TagValue } from '@credo-ts/core'
import { sql, type SQL } from 'drizzle-orm'
import { afterPosition, type RowPosition } from '../../database/pages.ts'
import { tagEntries, type TagEntry, type TagKind } from './tags.ts'

/** The partition a statement works in: the agent context and the record type. */
export interface RecordScope {
  contextId: string
  type: string
}

/** A query as Credo builds it (`AdvancedQuery | SimpleQuery` in `storage/StorageService`). */
interface QueryNode {
  $and?: QueryNode[]
  $or?: QueryNode[]
  $not?: QueryNode
  [tag: string]: TagValue | QueryNode | QueryNode[]
}

function allOf(conditions: SQL[]): SQL {
  if (conditions.length === 0) return sql`1 = 1`
  if (conditions.length === 1) return conditions[0] as SQL
  return sql`(${sql.join(conditions, sql` AND `)})`
}

/**
 * SQLite refuses a compound SELECT of more than 500 terms (`SQLITE_MAX_COMPOUND_SELECT`): a longer
 * union is a union of unions (`union`).
 */
const MAX_UNION_TERMS = 500

/**
 * `id IN (SELECT id ... WHERE <branch 1> UNION SELECT id ... WHERE <branch 2> ...)` rather than
 * `<branch 1> OR <branch 2>`: each branch is then planned on its own, from the tag index, and
 * the union drives the outer query by primary key. With an OR of subqueries SQLite reads every
 * record of the type and tests it (measured, 20,000 records: 0.4 ms against 2.8 ms).
 *
 * Branches that are one tag value each (`{ outOfBandId: 'x' }`, as `didcomm/connections.ts` lists
 * the connections of hundreds of invitations) are one term per tag and kind, a lookup of all its
 * values (`value IN (...)`): the statement then grows by one bound value per branch, not by a
 * SELECT (600 SELECTs took PostgreSQL seconds to plan). The other branches are a term each.
 */
function anyOf(branches: QueryNode[], scope: RecordScope): SQL {
  if (branches.length === 1) return compile(branches[0] as QueryNode, scope)
  const lookups = new Map<string, { name: string; kind: TagKind; values: Set<string> }>()
  const others: SQL[] = []
  for (const branch of branches) {
    const entry = soleEntry(branch)
    if (!entry) {
      others.push(compile(branch, scope))
      continue
    }
    const key = JSON.stringify([entry.name, entry.kind])
    if (!lookups.has(key)) lookups.set(key, { name: entry.name, kind: entry.kind, values: new Set() })
    lookups.get(key)?.values.add(entry.value)
  }
  const terms = [...[...lookups.values()].map(({ name, kind, values }) => hasTag(scope, name, kind, [...values])), ...others]
  if (terms.length === 1) return terms[0] as SQL
  return sql`credo_records.id IN (${union(terms.map((term) => sql`${recordsInScope(scope)} AND ${term}`))})`
}

/** The one tag entry `node` asks for when that is all it asks (no `$and`, `$or`, `$not` or null), else undefined. */
function soleEntry(node: QueryNode): TagEntry | undefined {
  const given = Object.entries(node).filter(([, value]) => value !== undefined)
  if (given.length !== 1) return undefined
  const [[name, value]] = given as [[string, unknown]]
  if (name === '$and' || name === '$or' || name === '$not' || value === null) return undefined
  const entries = tagEntries(name, value as TagValue)
  return entries.length === 1 ? entries[0] : undefined
}

/** `selects` (each of one column `id`) as one UNION of at most `MAX_UNION_TERMS` terms: a longer list is nested, 500 a term. */
function union(selects: SQL[]): SQL {
  if (selects.length <= MAX_UNION_TERMS) return sql.join(selects, sql` UNION `)
  const nested: SQL[] = []
  for (let start = 0; start < selects.length; start += MAX_UNION_TERMS) {
    nested.push(sql`SELECT id FROM (${union(selects.slice(start, start + MAX_UNION_TERMS))}) AS terms`)
  }
  return union(nested)
}

function recordsInScope(scope: RecordScope): SQL {
  return sql`SELECT credo_records.id FROM credo_records WHERE credo_records.context_id = ${scope.contextId} AND credo_records.type = ${scope.type}`
}

function tagsInScope(scope: RecordScope): SQL {
  return sql`SELECT record_id FROM credo_record_tags WHERE credo_record_tags.context_id = ${scope.contextId} AND credo_record_tags.type = ${scope.type}`
}

/** The record has tag `name` of `kind` with one of `values` (at least one). */
function hasTag(scope: RecordScope, name: string, kind: TagKind, values: string[]): SQL {
  const list = sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )
  const value = values.length === 1 ? sql`credo_record_tags.value = ${values[0]}` : sql`credo_record_tags.value IN (${list})`
  const matches = sql`credo_record_tags.name = ${name} AND ${value} AND credo_record_tags.kind = ${kind}`
  return sql`credo_records.id IN (${tagsInScope(scope)} AND ${matches})`
}

/** The candidate record (of the enclosing `credo_records`) also has the tag `entry`: one primary-key lookup. */
function alsoHasTag(entry: TagEntry): SQL {
  return sql`EXISTS (SELECT 1 FROM credo_record_tags WHERE credo_record_tags.context_id = credo_records.context_id
    AND credo_record_tags.type = credo_records.type AND credo_record_tags.record_id = credo_records.id
    AND credo_record_tags.name = ${entry.name} AND credo_record_tags.value = ${entry.value} AND credo_record_tags.kind = ${entry.kind})`
}

/**
 * `entries` with the likeliest to be rare first, by a rule of thumb on Credo's tags (the
 * database has no statistics per tag value): ids, DIDs, keys and thread ids are long strings
 * and nearly unique, while roles, states and protocol names are short words shared by many
 * records, and a boolean has two values. So booleans go last, the rest by decreasing value
 * length. Only the speed of a query depends on it, never its result.
 */
function drivingFirst(entries: TagEntry[]): TagEntry[] {
  const weight = (entry: TagEntry) => (entry.kind === 'boolean' ? -1 : entry.value.length)
  return [...entries].sort((a, b) => weight(b) - weight(a))
}

function hasTagNamed(scope: RecordScope, name: string): SQL {
  return sql`credo_records.id IN (${tagsInScope(scope)} AND credo_record_tags.name = ${name})`
}

function compile(node: QueryNode, scope: RecordScope): SQL {
  const { $and, $or, $not, ...tags } = node
  const entries: TagEntry[] = []
  const absent: SQL[] = []
  for (const [name, value] of Object.entries(tags)) {
    if (value === undefined) continue
    if (value === null) absent.push(sql`NOT (${hasTagNamed(scope, name)})`)
    else entries.push(...tagEntries(name, value as TagValue))
  }
  const [driving, ...others] = drivingFirst(entries)
  const conditions: SQL[] = driving
    ? [hasTag(scope, driving.name, driving.kind, [driving.value]), ...others.map(alsoHasTag), ...absent]
    : absent
  if ($and) conditions.push(...$and.map((child) => compile(child, scope)))
  if ($or && $or.length > 0) conditions.push(anyOf($or, scope))
  if ($not) conditions.push(sql`NOT (${compile($not, scope)})`)
  return allOf(conditions)
}

/** A row of `selectRecords`: the record's id, its value and its tags' JSON, as stored. */
export interface StoredRecordRow extends Record<string, unknown> {
  id: string
  value: string
  tags: string
}

/** What a listing takes beyond Credo's query and options: times and order. */
export interface RecordSelection {
  /** Only records last changed (`updated_at`, ms since the epoch) before this. */
  updatedBefore?: number
  /** Only records last changed after this. */
  updatedAfter?: number
  /**
   * Newest first (`created_at, id` descending) instead of oldest first; with `after`, only the
   * records after that one in this order (older), for keyset paging.
   */
  newestFirst?: { after?: RowPosition }
}

/**
 * The `SELECT id, value, tags` of the records in a scope that match `query` (all if omitted), in
 * creation order (`created_at, id`, or descending with `selection.newestFirst`), with
 * `limit`/`offset` from `options`, for either dialect.
 * Run it with `selectRows<StoredRecordRow>` (`agent-node/src/database/dialect.ts`).
 *
 * @param query e.g. `{ state: 'completed', $or: [{ role: 'requester' }, { isReady: true }] }`
 * @param selection times and order beyond Credo's query (`RecordSelection`)
 * @throws {CredoError} if `options.cursor` is set (Credo's cursor pagination is not implemented:
 *   `selection.newestFirst.after` pages instead), or a tag value is not a Credo `TagValue` (e.g. a number,
 *   or an Askar WQL operator object such as `{ $neq: 'x' }`, which Credo's query type does not
 *   include).
 */
export function selectRecords(
  scope: RecordScope,
  query?: Query<BaseRecordAny>,
  options: QueryOptions = {},
  selection: RecordSelection = {},
): SQL {
  if (options.cursor) throw new CredoError('Cursor pagination is not supported by this storage')
  const matching = query === undefined ? sql`` : sql` AND ${compile(query as QueryNode, scope)}`
  const { updatedBefore, updatedAfter, newestFirst } = selection
  const bounds = sql``
  if (updatedBefore !== undefined) bounds.append(sql` AND credo_records.updated_at < ${updatedBefore}`)
  if (updatedAfter !== undefined) bounds.append(sql` AND credo_records.updated_at > ${updatedAfter}`)
  if (newestFirst?.after) bounds.append(sql` AND ${afterPosition('credo_records', newestFirst.after)}`)
  const order = newestFirst ? sql`credo_records.created_at DESC, credo_records.id DESC` : sql`credo_records.created_at, credo_records.id`
  const inScope = sql`credo_records.context_id = ${scope.contextId} AND credo_records.type = ${scope.type}`
  const columns = sql`SELECT credo_records.id, credo_records.value, credo_records.tags FROM credo_records`
  // SQLite takes an OFFSET only after a LIMIT; negative values put no bound
  const limit = options.limit !== undefined && options.limit >= 0 ? options.limit : undefined
  const offset = options.offset !== undefined && options.offset >= 0 ? options.offset : undefined
  if (limit === undefined && offset === undefined) return sql`${columns} WHERE ${inScope}${matching}${bounds} ORDER BY ${order}`
  // A page: the matching keys are sorted and cut first, then only the page's values are read (by
  // primary key). Sorting whole rows made a page of 100 among 10,000 connections cost 28 ms of
  // SQLite, against 7 ms this way (bench/README.md, "connection-list").
  const page = sql`SELECT credo_records.id FROM credo_records WHERE ${inScope}${matching}${bounds} ORDER BY ${order} LIMIT ${limit ?? Number.MAX_SAFE_INTEGER}`
  if (offset !== undefined) page.append(sql` OFFSET ${offset}`)
  return sql`${columns} WHERE ${inScope} AND credo_records.id IN (${page}) ORDER BY ${order}`
}
