/**
 * The SQLite tables of the Credo record store, as drizzle definitions (for queries) and as the
 * `CREATE ... IF NOT EXISTS` statements that create them when the store is opened. The two
 * describe the same tables; a test checks that their columns and indexes agree.
 *
 * One row per record in `credo_records` (the JSON of the record and of its tags), and one row
 * per indexed tag value in `credo_record_tags`, so that tag queries are index lookups. Both are
 * partitioned by the agent context (`context_id`) and the record type (Askar's "category").
 */
import type { TagsBase } from '@credo-ts/core'
import { foreignKey, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { TagKind } from './tags.ts'

/**
 * Records: `value` is `JsonTransformer.toJSON(record)`, `tags` is `record.getTags()` without
 * null or undefined values (both mean "no tag", as in Askar). Times are milliseconds since
 * the epoch; `created_at, id` is the order of every listing. There is deliberately no index on
 * `created_at`: with one, SQLite walks all records of a type in that order and tests each
 * against the tag subqueries; without, a tag query reads only the matching records, by
 * primary key, and sorts those few.
 */
export const credoRecords = sqliteTable(
  'credo_records',
  {
    contextId: text('context_id').notNull(),
    type: text('type').notNull(),
    id: text('id').notNull(),
    value: text('value', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    tags: text('tags', { mode: 'json' }).$type<TagsBase>().notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.contextId, table.type, table.id] })],
)

/**
 * The tag index: one row per string or boolean tag, and one per element of an array tag
 * (see `tags.ts` for the encoding). The primary key doubles as the per-record index used to
 * replace a record's tags; `credo_record_tags_lookup` answers tag queries from the index alone.
 * Rows go with their record (`ON DELETE CASCADE`).
 */
export const credoRecordTags = sqliteTable(
  'credo_record_tags',
  {
    contextId: text('context_id').notNull(),
    type: text('type').notNull(),
    recordId: text('record_id').notNull(),
    name: text('name').notNull(),
    kind: text('kind').$type<TagKind>().notNull(),
    value: text('value').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.contextId, table.type, table.recordId, table.name, table.value] }),
    foreignKey({
      columns: [table.contextId, table.type, table.recordId],
      foreignColumns: [credoRecords.contextId, credoRecords.type, credoRecords.id],
    }).onDelete('cascade'),
    index('credo_record_tags_lookup').on(
      table.contextId,
      table.type,
      table.name,
      table.value,
      table.kind,
      table.recordId,
    ),
  ],
)

/** SQLite statements creating the tables and indexes above; safe to run on every start. */
export const schemaStatements: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS credo_records (
    context_id TEXT NOT NULL,
    type TEXT NOT NULL,
    id TEXT NOT NULL,
    value TEXT NOT NULL,
    tags TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
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
