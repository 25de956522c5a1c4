import type { Schema } from '../../database/dialect.ts'

/** Prefix of a sealed `credo_records.value`; a value without it is clear JSON from before sealing. */
export const SEALED_PREFIX = 'sealed:v1:'

/** The condition of a value still in clear, as SQL text (the partial index and its query must say it alike). */
export const CLEAR_VALUE = `value NOT LIKE '${SEALED_PREFIX}%'`

/**
 * The tables of the Credo record store, as the portable `CREATE … IF NOT EXISTS` statements
 * that create them when the store is opened (`applySchema`, `agent-node/src/database`), the same
 * text for SQLite and PostgreSQL.
 *
 * One row per record in `credo_records` (the JSON of the record and of its tags), and one row
 * per indexed tag value in `credo_record_tags`, so that tag queries are index lookups. Both are
 * partitioned by the agent context (`context_id`) and the record type (Askar's "category").
 *
 * `credo_records`: `value` is `JsonTransformer.toJSON(record)`, `tags` is `record.getTags()`
 * without null or undefined values (both mean "no tag", as in Askar), both JSON text. Times are
 * milliseconds since the epoch (BIGINT); `created_at, id` is the order of every listing. There
 * is deliberately no index on `created_at`: with one, SQLite walks all records of a type in that
 * order and tests each against the tag subqueries; without, a tag query reads only the matching
 * records, by primary key, and sorts those few.
 *
 * `credo_record_tags`: one row per string or boolean tag, and one per element of an array tag
 * (see `tags.ts` for the encoding). The primary key doubles as the per-record index used to
 * replace a record's tags; `credo_record_tags_lookup` answers tag queries from the index alone.
 * Rows go with their record (`ON DELETE CASCADE`).
 */
const CREDO_SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS credo_records (
    context_id TEXT NOT NULL,
    type TEXT NOT NULL,
    id TEXT NOT NULL,
    value TEXT NOT NULL,
    tags TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (context_id, type, id)
  )`,
  `CREATE TABLE IF NOT EXISTS credo_record_tags (
    context_id TEXT NOT NULL,
    type TEXT NOT NULL,
    record_id TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (context_id, type, record_id, name, value),
    FOREIGN KEY (context_id, type, record_id)
      REFERENCES credo_records (context_id, type, id) ON DELETE CASCADE
  )`,
  `CREATE INDEX IF NOT EXISTS credo_record_tags_lookup
    ON credo_record_tags (context_id, type, name, value, kind, record_id)`,
]

/**
 * Step 2, so that a start reads no more records than it needs (issue 16, "Start-up and size"):
 * - `credo_records_updated`, records by the time they last changed: start-up event recovery
 *   reads only the records changed since its checkpoint (`findUpdatedAfter`,
 *   `agent-node/src/events/recovery.ts`) instead of every record of a type. Tag queries keep
 *   using the primary key: this index neither orders by `created_at` nor matches `id IN (…)`.
 * - `credo_records_clear`, a partial index of the values still stored in clear (from before
 *   sealing; `DrizzleStorageService.open` seals them): finding none reads the index, not every
 *   record on SQLite. Its condition is the one `open` queries with, literally (`CLEAR_VALUE`).
 *   PostgreSQL's planner, with no statistics of values this long, estimates that most rows
 *   match and still reads the table (7 ms for 20,000 records, measured).
 */
const CREDO_STARTUP_SQL: readonly string[] = [
  'CREATE INDEX credo_records_updated ON credo_records (context_id, type, updated_at)',
  `CREATE INDEX credo_records_clear ON credo_records (context_id, type, id) WHERE ${CLEAR_VALUE}`,
]

/**
 * The versioned schema of the Credo record store (`applySchema`, `agent-node/src/database/README.md`,
 * "Migrations"): step 1 is the list above, the tables as first released. Append new steps; never
 * edit a released one.
 */
export const CREDO_SCHEMA: Schema = { name: 'credo_records', steps: [CREDO_SCHEMA_SQL, CREDO_STARTUP_SQL] }
