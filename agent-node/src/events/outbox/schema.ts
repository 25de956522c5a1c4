import type { Schema } from '../../database/dialect.ts'

/**
 * Tables of the event outbox in the agent database, as the portable `CREATE … IF NOT EXISTS`
 * statements `applySchema` (`agent-node/src/database`) runs on SQLite and PostgreSQL alike:
 *
 * - `event_outbox`: every event, written once and never changed (but for the `content` of a
 *   received message that held a secret, overwritten by the `redact-message` tunnel command). `position` orders all events of
 *   the agent (the cursor of `/v1/events`, and what tells which events existed before a
 *   subscriber was added); `seq` orders the events of one connection, from 1 up by one, and is
 *   the order every subscriber receives them in. `id` (UUID) is the receivers' dedupe key
 *   (`webhook-id`, tunnel frame id), `topic` the event's `type`, `body` the JSON of the event
 *   exactly as delivered.
 * - `event_positions`: one row (`id = 'outbox'`), the last position handed out. Positions are
 *   allocated from it inside the batch that appends the events (`store.ts`, `append`), not by an
 *   auto-increment column (which the two dialects spell differently, and which on PostgreSQL
 *   would let a later position commit before an earlier one). The last statement below creates
 *   the row, past any event already stored.
 * - `event_sequences`: the last sequence number handed out per connection.
 * - `event_subscribers`: each subscriber by its stable name. It receives the events whose
 *   `position` is above `start_position` (the newest position when it was first added), so a
 *   new subscriber does not replay the agent's history.
 * - `event_cursors`: where a subscriber stands in a connection: every event up to
 *   `delivered_seq` is acknowledged, dead-lettered or not for it. `attempts`, `next_attempt_at`
 *   and `last_error` describe the event at the head (a replayed dead letter first, else
 *   `delivered_seq + 1`), so a retry schedule survives a restart.
 * - `event_dead_letters`: events a subscriber gave up on (`reason` `rejected`: it refused the
 *   event, 4xx; `exhausted`: every attempt failed), kept for listing and replay through the
 *   admin API. `status` is `dead` until replayed, `replaying` while a replay is owed,
 *   `replayed` once acknowledged.
 *
 * Times are milliseconds since the epoch (BIGINT: PostgreSQL's INTEGER is 32-bit).
 */
const OUTBOX_SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS event_outbox (
    position BIGINT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    connection_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    topic TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (connection_id, seq)
  )`,
  `CREATE TABLE IF NOT EXISTS event_positions (
    id TEXT PRIMARY KEY,
    last_position BIGINT NOT NULL
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
  `INSERT INTO event_positions (id, last_position)
    VALUES ('outbox', (SELECT COALESCE(MAX(position), 0) FROM event_outbox))
    ON CONFLICT (id) DO NOTHING`,
]

/**
 * Step 2, the retention pruner's mark (`retention/`): `event_pruned`, one row (`id = 'outbox'`),
 * the newest `position` it deleted and the newest `created_at` among deleted events. Events at or
 * below that position may be gone (`/v1/events?from=` answers 410 below it), and start-up
 * recovery does not look for events of changes made before that time. The index lets the pruner
 * ask, per event, whether a dead letter still needs it.
 */
const OUTBOX_PRUNED_SQL: readonly string[] = [
  `CREATE TABLE event_pruned (
    id TEXT PRIMARY KEY,
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
  `CREATE INDEX event_dead_letters_event ON event_dead_letters (event_id)`,
]

/**
 * Step 3, idempotent publishing: `dedupe_key`, set on events that must be stored once however
 * often their cause is processed (a `message-received` is keyed by its connection and DIDComm
 * message `@id`, so an inbound envelope processed again after a crash publishes nothing new);
 * NULL for the others. The unique index (NULLs never collide, in both dialects) keeps two
 * processes from storing the same key at once.
 */
const OUTBOX_DEDUPE_SQL: readonly string[] = [
  `ALTER TABLE event_outbox ADD COLUMN dedupe_key TEXT`,
  `CREATE UNIQUE INDEX event_outbox_dedupe ON event_outbox (dedupe_key)`,
]

/**
 * Step 4, the start-up recovery's checkpoint (`events/recovery.ts`): `event_recovery_checkpoint`,
 * one row per writer (`id`; one agent-node writes `agent-node`). Every state stored before
 * `through` (ms since the epoch) had its event in the outbox, at a `position` at most `position`;
 * recovery looks only at states changed since and reads the outbox only after that position.
 */
const OUTBOX_RECOVERY_CHECKPOINT_SQL: readonly string[] = [
  `CREATE TABLE event_recovery_checkpoint (
    id TEXT PRIMARY KEY,
    through BIGINT NOT NULL,
    position BIGINT NOT NULL
  )`,
]

/**
 * Step 5, indexes for reads that sorted or scanned a growing table (found by `EXPLAIN QUERY PLAN`
 * at 100,000 rows): a `/v1/events?connectionId=` stream reads a connection's events in position
 * order (a sort of all of them, 43–48 ms at 100,000); `GET /v1/dead-letters` lists newest first,
 * optionally by subscriber, status or connection (a scan and a sort, 100–320 ms at 100,000), and
 * the retention pruner deletes replayed dead letters by `updated_at`.
 */
const OUTBOX_READ_INDEXES_SQL: readonly string[] = [
  `CREATE INDEX event_outbox_connection_position ON event_outbox (connection_id, position)`,
  `CREATE INDEX event_dead_letters_created ON event_dead_letters (created_at, id)`,
  `CREATE INDEX event_dead_letters_subscriber_created ON event_dead_letters (subscriber, created_at, id)`,
  `CREATE INDEX event_dead_letters_status_created ON event_dead_letters (status, created_at, id)`,
  `CREATE INDEX event_dead_letters_connection_created ON event_dead_letters (connection_id, created_at, id)`,
  `CREATE INDEX event_dead_letters_status_updated ON event_dead_letters (status, updated_at)`,
]

/**
 * Step 6, the lag floor (`store.ts`, `pendingAboveFloors`): per subscriber, a position at or below
 * which every event was delivered to it (or dead-lettered, or not for it) when `lag` or
 * `connectionsWithWork` last looked; NULL until then (read as its `start_position`). Both read
 * the events above it (at most `LAG_SCAN_EVENTS`), instead of every lane (43 ms at 43,000
 * cursors, 1.7 s at 285,000, on every `/readyz` and `/metrics`; 47 ms at 100,000 lanes at each
 * PostgreSQL cluster round). Cursors never move back, so the floor only rises.
 */
const OUTBOX_LAG_FLOOR_SQL: readonly string[] = ['ALTER TABLE event_subscribers ADD COLUMN lag_floor BIGINT']

/**
 * Step 7, redaction (`store.ts`, `redactReceivedMessage`) finds a `message-received` event by its
 * dedupe key; the events stored before step 3 have none, and this partial index holds just those,
 * per connection, instead of a read of every received message of the connection (168–221 ms at
 * 40,000).
 */
const OUTBOX_UNKEYED_RECEIVED_SQL: readonly string[] = [
  `CREATE INDEX event_outbox_unkeyed_received ON event_outbox (connection_id)
    WHERE topic = 'message-received' AND dedupe_key IS NULL`,
]

/**
 * Step 8, absent subscribers (`store.ts`, `markAbsent` and `pruneDelivered`): since when a
 * subscriber that has events and a cursor here is no longer configured (a built-in one whose
 * variable was unset); NULL while it is configured. Once absent for longer than
 * EVENTS_RETENTION_DAYS it no longer holds events back from the pruner.
 */
const OUTBOX_ABSENT_SQL: readonly string[] = ['ALTER TABLE event_subscribers ADD COLUMN absent_since BIGINT']

/**
 * The versioned schema of the event outbox (`applySchema`, `agent-node/src/database/README.md`,
 * "Migrations"): step 1 is the first list above, the tables as first released. Append new steps;
 * never edit a released one.
 */
export const OUTBOX_SCHEMA: Schema = {
  name: 'event_outbox',
  steps: [
    OUTBOX_SCHEMA_SQL,
    OUTBOX_PRUNED_SQL,
    OUTBOX_DEDUPE_SQL,
    OUTBOX_RECOVERY_CHECKPOINT_SQL,
    OUTBOX_READ_INDEXES_SQL,
    OUTBOX_LAG_FLOOR_SQL,
    OUTBOX_UNKEYED_RECEIVED_SQL,
    OUTBOX_ABSENT_SQL,
  ],
}
