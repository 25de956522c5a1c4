/**
 * The table of event subscriptions (`/v1/event-subscriptions`), next to the outbox's tables in
 * the agent database. A subscription's delivery state (its cursor in each connection, its retry
 * schedule, its dead letters) lives in the outbox tables under the subscriber name
 * `subscription:<id>`; this table holds only what the controller registered.
 *
 * Times are milliseconds since the epoch (BIGINT, as in the outbox). The DDL is SQL that SQLite
 * and PostgreSQL both accept.
 */
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const eventSubscriptions = sqliteTable('event_subscriptions', {
  /** UUID, chosen by the agent. */
  id: text('id').primaryKey(),
  /** Where events go: `http(s)://` (POST `<url>/<topic>`) or `ws(s)://` (the agent dials it). */
  url: text('url').notNull(),
  /** JSON array of topics, or NULL for every topic. */
  topics: text('topics'),
  /** Only events of this connection, or NULL for every connection. */
  connectionId: text('connection_id'),
  createdAt: integer('created_at').notNull(),
})

/** `CREATE ... IF NOT EXISTS` statements for the table above. */
export const SUBSCRIPTIONS_SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS event_subscriptions (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    topics TEXT,
    connection_id TEXT,
    created_at BIGINT NOT NULL
  )`,
]
