import type { Schema } from '../../database/dialect.ts'

/**
 * The table of event subscriptions (`/v1/event-subscriptions`), next to the outbox's tables in
 * the agent database, as the portable `CREATE … IF NOT EXISTS` statement `applySchema`
 * (`agent-node/src/database`) runs on SQLite and PostgreSQL alike. A subscription's delivery
 * state (its cursor in each connection, its retry schedule, its dead letters) lives in the
 * outbox tables under the subscriber name `subscription:<id>`; this table holds only what the
 * controller registered:
 *
 * - `id`: UUID, chosen by the agent;
 * - `url`: where events go: `http(s)://` (POST `<url>/<topic>`) or `ws(s)://` (the agent dials it);
 * - `topics`: JSON array of topics, or NULL for every topic;
 * - `connection_id`: only events of this connection, or NULL for every connection;
 * - `created_at`: milliseconds since the epoch (BIGINT, as in the outbox).
 */
const SUBSCRIPTIONS_SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS event_subscriptions (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    topics TEXT,
    connection_id TEXT,
    created_at BIGINT NOT NULL
  )`,
]

/**
 * The versioned schema of the event subscriptions (`applySchema`, `agent-node/src/database/README.md`,
 * "Migrations"): step 1 is the list above, the tables as first released. Append new steps; never
 * edit a released one.
 */
export const SUBSCRIPTIONS_SCHEMA: Schema = { name: 'event_subscriptions', steps: [SUBSCRIPTIONS_SCHEMA_SQL] }
