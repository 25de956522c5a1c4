/**
 * Tables of the event outbox in the agent database: the events themselves, the per-connection
 * sequence counters, the subscribers that read them, each subscriber's per-connection cursor
 * (with the retry state of the event at its head) and the dead letters.
 *
 * Times are milliseconds since the epoch (BIGINT: PostgreSQL's INTEGER is 32-bit). The DDL is
 * SQL that SQLite and PostgreSQL both accept except one column: `event_outbox.position`, which
 * is SQLite's auto-assigned `INTEGER PRIMARY KEY` (the rowid) and becomes
 * `BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY` in PostgreSQL.
 */
import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Every event, written once and never changed. `position` orders all events of the agent
 * (it tells which events existed before a subscriber was added); `seq` orders the events of one
 * connection, from 1 up by one, and is the order every subscriber receives them in.
 */
export const eventOutbox = sqliteTable('event_outbox', {
  position: integer('position').primaryKey(),
  /** UUID; the receivers' dedupe key (`webhook-id`, tunnel frame id). */
  id: text('id').notNull().unique(),
  connectionId: text('connection_id').notNull(),
  seq: integer('seq').notNull(),
  /** The event's `type`, which is its topic. */
  topic: text('topic').notNull(),
  /** JSON of the event body exactly as delivered. */
  body: text('body').notNull(),
  createdAt: integer('created_at').notNull(),
})

/** The last sequence number handed out per connection. */
export const eventSequences = sqliteTable('event_sequences', {
  connectionId: text('connection_id').primaryKey(),
  lastSeq: integer('last_seq').notNull(),
})

/**
 * Each subscriber by its stable name. It receives the events whose `position` is above
 * `start_position` (the newest position when it was first added), so a new subscriber does not
 * replay the agent's history.
 */
export const eventSubscribers = sqliteTable('event_subscribers', {
  name: text('name').primaryKey(),
  startPosition: integer('start_position').notNull(),
  createdAt: integer('created_at').notNull(),
})

/**
 * Where a subscriber stands in a connection: every event up to `delivered_seq` is acknowledged,
 * dead-lettered or not for it. `attempts`, `next_attempt_at` and `last_error` describe the event
 * at the head (a replayed dead letter first, else `delivered_seq + 1`), so a retry schedule
 * survives a restart.
 */
export const eventCursors = sqliteTable(
  'event_cursors',
  {
    subscriber: text('subscriber').notNull(),
    connectionId: text('connection_id').notNull(),
    deliveredSeq: integer('delivered_seq').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull().default(0),
    lastError: text('last_error'),
  },
  (table) => [primaryKey({ columns: [table.subscriber, table.connectionId] })],
)

/** Why an event was dead-lettered: the subscriber refused it (4xx), or every attempt failed. */
export type DeadLetterReason = 'rejected' | 'exhausted'
/** `dead` until replayed; `replaying` while a replay is owed; `replayed` once acknowledged. */
export type DeadLetterStatus = 'dead' | 'replaying' | 'replayed'

/** Events a subscriber gave up on, kept for listing and replay through the admin API. */
export const eventDeadLetters = sqliteTable('event_dead_letters', {
  id: text('id').primaryKey(),
  subscriber: text('subscriber').notNull(),
  eventId: text('event_id').notNull(),
  connectionId: text('connection_id').notNull(),
  seq: integer('seq').notNull(),
  topic: text('topic').notNull(),
  reason: text('reason').$type<DeadLetterReason>().notNull(),
  status: text('status').$type<DeadLetterStatus>().notNull(),
  attempts: integer('attempts').notNull(),
  lastError: text('last_error').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

/** `CREATE ... IF NOT EXISTS` statements for the tables above, in order. */
export const OUTBOX_SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS event_outbox (
    position INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    connection_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    topic TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (connection_id, seq)
  )`,
  `CREATE TABLE IF NOT EXISTS event_sequences (
    connection_id TEXT PRIMARY KEY,
    last_seq BIGINT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS event_subscribers (
    name TEXT PRIMARY KEY,
    start_position BIGINT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS event_cursors (
    subscriber TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    delivered_seq BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL DEFAULT 0,
    last_error TEXT,
    PRIMARY KEY (subscriber, connection_id)
  )`,
  `CREATE TABLE IF NOT EXISTS event_dead_letters (
    id TEXT PRIMARY KEY,
    subscriber TEXT NOT NULL,
    event_id TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    topic TEXT NOT NULL,
    reason TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS event_dead_letters_lane ON event_dead_letters (subscriber, connection_id, status, seq)`,
]
