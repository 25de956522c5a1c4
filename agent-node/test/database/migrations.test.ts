/**
 * Versioned migrations (`applySchema`, database/README.md "Migrations"), on both dialects: a
 * database made by the previous release (the frozen DDL of `fixtures/`, no version table) and
 * filled with rows is adopted at version 1 with every row kept; later steps run once, in order;
 * a failing step is rolled back and names itself; a database newer than the code is refused;
 * concurrent runners apply each step once; agent-node itself starts on such a database with its
 * identity and events.
 */
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { applySchema, execute, MigrationError, runAtomically, type Schema, schemaVersion, selectRows } from '../../src/database/dialect.ts'
import { openDatabase, type Database } from '../../src/database/index.ts'
import { PICKUP_QUEUE_SCHEMA } from '../../src/didcomm/transport/DatabaseQueueTransportRepository.ts'
import { INBOX_SCHEMA } from '../../src/didcomm/inbox/InboundInbox.ts'
import { OUTBOX_SCHEMA } from '../../src/events/outbox/schema.ts'
import { SUBSCRIPTIONS_SCHEMA } from '../../src/events/subscriptions/schema.ts'
import { IDEMPOTENCY_SCHEMA } from '../../src/messaging/idempotency.ts'
import { KMS_SCHEMA } from '../../src/wallet/kms/schema.ts'
import { CREDO_SCHEMA } from '../../src/wallet/storage/schema.ts'
import { useTestAgentNode } from '../support/agent-node.ts'
import { messageState } from '../support/events.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'
import { SCHEMA_BEFORE_VERSIONING } from './fixtures/schema-before-versioning.ts'

/** Every store's schema, as agent-node applies them at start-up. */
const SCHEMAS: readonly Schema[] = [
  CREDO_SCHEMA,
  KMS_SCHEMA,
  OUTBOX_SCHEMA,
  SUBSCRIPTIONS_SCHEMA,
  PICKUP_QUEUE_SCHEMA,
  INBOX_SCHEMA,
  IDEMPOTENCY_SCHEMA,
]

/** One row in every table of the previous release, as its code wrote them. */
const OLD_ROWS = [
  `INSERT INTO credo_records VALUES ('ctx', 'ConnectionRecord', 'c1', '{"id":"c1"}', '{"state":"completed"}', 1, 2)`,
  `INSERT INTO credo_record_tags VALUES ('ctx', 'ConnectionRecord', 'c1', 'state', 'string', 'completed')`,
  `INSERT INTO kms_meta VALUES ('kms', 'scrypt', '{"N":32768}', 'salt', 'check', '2026-01-01T00:00:00Z')`,
  `INSERT INTO kms_keys VALUES ('ctx', 'k1', 'cipher', 'iv', '2026-01-01T00:00:00Z')`,
  `INSERT INTO event_outbox VALUES (1, 'e1', 'conn', 1, 'message-received', '{"type":"message-received"}', 10)`,
  `UPDATE event_positions SET last_position = 1 WHERE id = 'outbox'`,
  `INSERT INTO event_sequences VALUES ('conn', 1)`,
  `INSERT INTO event_subscribers VALUES ('tunnel', 0, 5)`,
  `INSERT INTO event_cursors VALUES ('tunnel', 'conn', 1, 0, 0, NULL)`,
  `INSERT INTO event_dead_letters VALUES ('d1', 'tunnel', 'e1', 'conn', 1, 'message-received', 'rejected', 'dead', 1, '400', 10, 10)`,
  `INSERT INTO event_subscriptions VALUES ('s1', 'https://example.com/hook', NULL, NULL, 3)`,
  `INSERT INTO didcomm_pickup_queue VALUES ('q1', 'ctx', 'conn', '[]', '{}', 4, 'pending')`,
  `INSERT INTO didcomm_inbox VALUES ('i1', '{}', 5)`,
  `INSERT INTO message_idempotency_keys VALUES ('admin', 'key', 'm1', 'hash', 6)`,
]

/** Columns steps after 1 added to the previous release's tables, with the value old rows get. */
const COLUMNS_ADDED_SINCE: Record<string, Record<string, null>> = {
  event_outbox: { dedupe_key: null },
  event_subscribers: { lag_floor: null, absent_since: null },
  didcomm_inbox: { instance_id: null },
  didcomm_pickup_queue: { instance_id: null },
}

/** Table → rows, for every table the previous release had. */
async function snapshot(database: Database): Promise<Record<string, unknown[]>> {
  const tables = Object.values(SCHEMA_BEFORE_VERSIONING)
    .flat()
    .flatMap((statement) => /^CREATE TABLE IF NOT EXISTS (\w+)/.exec(statement)?.[1] ?? [])
  const result: Record<string, unknown[]> = {}
  for (const table of tables) {
    const rows = await selectRows(database, sql.raw(`SELECT * FROM ${table}`))
    // PostgreSQL returns BIGINT as strings, SQLite as numbers: compare as text
    result[table] = rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? null : String(v)])))
  }
  return result
}

/** Whitespace-insensitive text of a list of statements. */
const normalized = (statements: readonly string[]) => statements.map((statement) => statement.replace(/\s+/g, ' ').trim())

describe('step 1 of every store', () => {
  it('is the frozen DDL of the previous release (released steps never change: append a step instead)', () => {
    expect(Object.fromEntries(SCHEMAS.map((schema) => [schema.name, normalized(schema.steps[0]!)]))).toEqual(
      Object.fromEntries(Object.entries(SCHEMA_BEFORE_VERSIONING).map(([name, ddl]) => [name, normalized(ddl)])),
    )
  })
})

describe.each(dialects)('migrations on %s', (dialect) => {
  const databases = useTempDatabases('parley-migrations-', dialect)

  it('adopts a filled database of the previous release at the newest version, keeping every row', async () => {
    const database = await databases.open()
    await runAtomically(
      database,
      Object.values(SCHEMA_BEFORE_VERSIONING)
        .flat()
        .map((s) => sql.raw(s)),
    )
    await runAtomically(
      database,
      OLD_ROWS.map((s) => sql.raw(s)),
    )
    const before = await snapshot(database)
    expect(Object.values(before).every((rows) => rows.length === 1)).toBe(true)

    for (const schema of SCHEMAS) await applySchema(database, schema)

    // every row kept, with the columns later steps added (empty)
    for (const [table, columns] of Object.entries(COLUMNS_ADDED_SINCE))
      before[table] = before[table]!.map((row) => ({ ...(row as object), ...columns }))
    expect(await snapshot(database)).toEqual(before)
    for (const schema of SCHEMAS) expect(await schemaVersion(database, schema.name)).toBe(schema.steps.length)
    const rows = await selectRows<{ store: string; version: number | string }>(database, sql`SELECT store, version FROM schema_migrations`)
    const steps = SCHEMAS.flatMap((schema) => schema.steps.map((_, i) => `${schema.name} ${i + 1}`))
    expect(rows.map((row) => `${row.store} ${row.version}`).sort()).toEqual(steps.sort())
    // the outbox's step 2 ran on the old tables
    expect(await selectRows(database, sql`SELECT * FROM event_pruned`)).toEqual([])

    // a second start changes nothing
    for (const schema of SCHEMAS) await applySchema(database, schema)
    expect(await selectRows(database, sql`SELECT store FROM schema_migrations`)).toHaveLength(steps.length)
    expect(await snapshot(database)).toEqual(before)
  })

  it('runs the steps after the recorded version, once each, keeping the data', async () => {
    const database = await databases.open()
    const v1: Schema = { name: 'widgets', steps: [['CREATE TABLE IF NOT EXISTS widgets (id TEXT PRIMARY KEY)']] }
    await applySchema(database, v1)
    await execute(database, sql`INSERT INTO widgets (id) VALUES ('w1')`)
    const v3: Schema = {
      name: 'widgets',
      steps: [
        ...v1.steps,
        ['ALTER TABLE widgets ADD COLUMN colour TEXT', "UPDATE widgets SET colour = 'red'"],
        ['CREATE TABLE gadgets (id TEXT PRIMARY KEY, widget_id TEXT NOT NULL REFERENCES widgets (id))'],
      ],
    }
    await applySchema(database, v3)
    await applySchema(database, v3)
    expect(await selectRows(database, sql`SELECT id, colour FROM widgets`)).toEqual([{ id: 'w1', colour: 'red' }])
    expect(await selectRows(database, sql`SELECT id FROM gadgets`)).toEqual([])
    const versions = await selectRows<{ version: number | string }>(
      database,
      sql`SELECT version FROM schema_migrations WHERE store = 'widgets' ORDER BY version`,
    )
    expect(versions.map((row) => Number(row.version))).toEqual([1, 2, 3])
  })

  it('rolls a failing step back, leaves the database at the previous version and says which step failed', async () => {
    const database = await databases.open()
    const v1: Schema = { name: 'widgets', steps: [['CREATE TABLE IF NOT EXISTS widgets (id TEXT PRIMARY KEY)']] }
    await applySchema(database, v1)
    await execute(database, sql`INSERT INTO widgets (id) VALUES ('w1')`)
    const broken: Schema = {
      name: 'widgets',
      steps: [...v1.steps, ['ALTER TABLE widgets ADD COLUMN colour TEXT', 'INSERT INTO no_such_table VALUES (1)']],
    }
    const failure = applySchema(database, broken)
    await expect(failure).rejects.toBeInstanceOf(MigrationError)
    await expect(failure).rejects.toThrow(
      /^Migration 2 of the widgets tables failed and was rolled back \(the database stays at version 1\): .*no_such_table/,
    )
    expect(await schemaVersion(database, 'widgets')).toBe(1)
    // the column of the failed step is not there
    expect(await selectRows(database, sql`SELECT * FROM widgets`)).toEqual([{ id: 'w1' }])
  })

  it('refuses a database written by a newer release', async () => {
    const database = await databases.open()
    const v2: Schema = {
      name: 'widgets',
      steps: [['CREATE TABLE IF NOT EXISTS widgets (id TEXT PRIMARY KEY)'], ['CREATE TABLE more (id TEXT)']],
    }
    await applySchema(database, v2)
    await expect(applySchema(database, { name: 'widgets', steps: v2.steps.slice(0, 1) })).rejects.toThrow(
      /holds version 2 of the widgets tables, newer than this agent-node knows \(1\)/,
    )
  })

  it('applies each step once when several openers run at the same time', async () => {
    const location = await databases.newLocation()
    const [a, b] = [await databases.open(location), await databases.open(location)]
    const schema: Schema = {
      name: 'widgets',
      steps: [['CREATE TABLE IF NOT EXISTS widgets (id TEXT PRIMARY KEY)'], ['ALTER TABLE widgets ADD COLUMN colour TEXT']],
    }
    await Promise.all([applySchema(a, schema), applySchema(b, schema), applySchema(a, schema)])
    expect(await selectRows(a, sql`SELECT version FROM schema_migrations WHERE store = 'widgets'`)).toHaveLength(2)
    await execute(b, sql`INSERT INTO widgets (id, colour) VALUES ('w1', 'blue')`)
  })
})

describe.each(dialects)('agent-node starting on a database of the previous release on %s', (dialect) => {
  const started = useTestAgentNode(dialect)

  it('adopts it at start-up: same identity, same events, every step recorded', async () => {
    const { node, config } = started.agent
    const publicDid = node.publicDid
    const [event] = await node.outbox.append([{ id: crypto.randomUUID(), connectionId: crypto.randomUUID(), event: messageState('c', 1) }])
    // back to the previous release's schema: its tables and rows, no versions, nothing added since
    const database = await openDatabase(config.databaseUrl ?? join(config.dataDir, 'agent.sqlite'))
    try {
      await runAtomically(database, [
        sql`DROP TABLE schema_migrations`,
        sql`DROP TABLE event_pruned`,
        sql`DROP INDEX event_dead_letters_event`,
        sql`DROP TABLE event_recovery_checkpoint`,
        sql`DROP INDEX credo_records_updated`,
        sql`DROP INDEX credo_records_clear`,
        sql`DROP INDEX event_outbox_dedupe`,
        sql`DROP INDEX event_outbox_connection_position`,
        sql`DROP INDEX event_outbox_unkeyed_received`,
        sql`DROP INDEX event_dead_letters_created`,
        sql`DROP INDEX event_dead_letters_subscriber_created`,
        sql`DROP INDEX event_dead_letters_status_created`,
        sql`DROP INDEX event_dead_letters_connection_created`,
        sql`DROP INDEX event_dead_letters_status_updated`,
        sql`DROP INDEX didcomm_pickup_queue_sending`,
        sql`DROP INDEX didcomm_pickup_queue_pending`,
        sql`ALTER TABLE event_outbox DROP COLUMN dedupe_key`,
        sql`ALTER TABLE event_subscribers DROP COLUMN lag_floor`,
        sql`ALTER TABLE event_subscribers DROP COLUMN absent_since`,
        sql`ALTER TABLE didcomm_inbox DROP COLUMN instance_id`,
        sql`ALTER TABLE didcomm_pickup_queue DROP COLUMN instance_id`,
        sql`DROP TABLE cluster_leases`,
      ])
    } finally {
      await database.close()
    }

    await started.agent.restart()
    const restarted = started.agent.node
    expect(restarted.publicDid).toBe(publicDid)
    expect(await restarted.outbox.event(event!.id)).toEqual(event)
    expect(await restarted.outbox.prunedThrough()).toBeUndefined()
    const reopened = await openDatabase(config.databaseUrl ?? join(config.dataDir, 'agent.sqlite'))
    try {
      for (const schema of SCHEMAS) expect(await schemaVersion(reopened, schema.name)).toBe(schema.steps.length)
    } finally {
      await reopened.close()
    }
  })
})
