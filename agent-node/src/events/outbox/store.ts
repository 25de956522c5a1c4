/**
 * Every query of the event outbox, in one module (tables: `schema.ts`), written once with
 * drizzle's `sql` template and run on SQLite or PostgreSQL through `agent-node/src/database/dialect.ts`.
 * Writes that must agree (an event, its position and its sequence number; a dead letter and the
 * cursor moving past it) run as one atomic batch.
 */
import { randomUUID } from 'node:crypto'
import { and, sql, type SQL } from 'drizzle-orm'
import type { AgentEvent } from '@parley/shared'
import { applySchema, constraintViolation, execute, returnAtomically, runAtomically, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import { afterPosition, type RowPosition } from '../../database/pages.ts'
import { OUTBOX_SCHEMA } from './schema.ts'

/**
 * An event as stored and delivered: `id` (UUID) is the receivers' dedupe key, `seq` starts at 1
 * per connection and grows by one per event (their ordering key), `position` orders all events
 * of the agent, `createdAt` is milliseconds since the epoch.
 */
export interface PublishedEvent {
  id: string
  connectionId: string
  seq: number
  position: number
  createdAt: number
  event: AgentEvent
}

/**
 * An event to append: its id is chosen by the caller so it is known before the write. With a
 * `dedupeKey`, it is stored only if no event with that key is (`append`).
 */
export interface NewEvent {
  id: string
  connectionId: string
  event: AgentEvent
  dedupeKey?: string
}

/**
 * The dedupe key of the `message-received` event of DIDComm message `messageId` on `connectionId`
 * (`NewEvent.dedupeKey`): stored once however often its envelope is processed.
 */
export function receivedMessageDedupeKey(connectionId: string, messageId: string): string {
  return `message-received ${connectionId} ${messageId}`
}

/**
 * Most events `lag` and `connectionsWithWork` read above a subscriber's lag floor; a subscriber
 * further behind is counted from its lanes instead (`OutboxStore`, `pendingAboveFloors`).
 */
export const LAG_SCAN_EVENTS = 5_000

/** A subscriber's place in one connection (table `event_cursors`, see `schema.ts`). */
export interface Cursor {
  deliveredSeq: number
  attempts: number
  /** Milliseconds since the epoch; 0 means "now". */
  nextAttemptAt: number
  lastError: string | null
}

/**
 * Where start-up recovery may start (`events/recovery.ts`): every state stored before `through`
 * (ms since the epoch) had its event stored, at a position at most `position`.
 */
export interface RecoveryCheckpoint {
  through: number
  position: number
}

/** Why an event was dead-lettered: the subscriber refused it (4xx), or every attempt failed. */
export type DeadLetterReason = 'rejected' | 'exhausted'
/** `dead` until replayed; `replaying` while a replay is owed; `replayed` once acknowledged. */
export type DeadLetterStatus = 'dead' | 'replaying' | 'replayed'

/**
 * An event a subscriber gave up on (table `event_dead_letters`): which event (`eventId`, its
 * `connectionId`, `seq` and `topic`), why, after how many attempts, and the last error. Times
 * are milliseconds since the epoch.
 */
export interface DeadLetter {
  id: string
  subscriber: string
  eventId: string
  connectionId: string
  seq: number
  topic: string
  reason: DeadLetterReason
  status: DeadLetterStatus
  attempts: number
  lastError: string
  createdAt: number
  updatedAt: number
}

/**
 * Filters of `listDeadLetters`, newest first: `before` keeps those created before a time
 * (milliseconds); `after` those after a dead letter in that order (`database/pages.ts`), which
 * pages exactly where `before` may repeat or skip dead letters of the same millisecond.
 */
export interface DeadLetterQuery {
  subscriber?: string
  connectionId?: string
  status?: DeadLetterStatus
  before?: number
  after?: RowPosition
  limit: number
}

/** BIGINT and INTEGER columns as the drivers return them (PostgreSQL: BIGINT as a string). */
type Integer = number | string

/**
 * Pending events of a subscriber as the lag reads count them: in one lane (`connection_id`) or in
 * all, the oldest one's time and position (null when counted from the lanes, which know neither).
 */
type PendingRow = { connection_id?: string; pending: Integer; oldest: Integer | null; first_position: Integer | null }

interface OutboxRow extends Record<string, unknown> {
  position: Integer
  id: string
  connection_id: string
  seq: Integer
  body: string
  created_at: Integer
}

const EVENT_COLUMNS = sql.raw('position, id, connection_id, seq, body, created_at')

function toPublished(row: OutboxRow): PublishedEvent {
  return {
    id: row.id,
    connectionId: row.connection_id,
    seq: Number(row.seq),
    position: Number(row.position),
    createdAt: Number(row.created_at),
    event: JSON.parse(row.body) as AgentEvent,
  }
}

interface DeadLetterRow extends Record<string, unknown> {
  id: string
  subscriber: string
  event_id: string
  connection_id: string
  seq: Integer
  topic: string
  reason: DeadLetterReason
  status: DeadLetterStatus
  attempts: Integer
  last_error: string
  created_at: Integer
  updated_at: Integer
}

const DEAD_LETTER_COLUMNS = sql.raw(
  'id, subscriber, event_id, connection_id, seq, topic, reason, status, attempts, last_error, created_at, updated_at',
)

function toDeadLetter(row: DeadLetterRow): DeadLetter {
  return {
    id: row.id,
    subscriber: row.subscriber,
    eventId: row.event_id,
    connectionId: row.connection_id,
    seq: Number(row.seq),
    topic: row.topic,
    reason: row.reason,
    status: row.status,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }
}

interface CursorRow extends Record<string, unknown> {
  delivered_seq: Integer
  attempts: Integer
  next_attempt_at: Integer
  last_error: string | null
}

/** `WHERE` and the conditions joined by `AND`, or nothing when there are none. */
function whereAll(conditions: readonly SQL[]): SQL {
  const all = and(...conditions)
  return all ? sql`WHERE ${all}` : sql``
}

export class OutboxStore {
  private constructor(private readonly database: Database) {}

  /** Creates the tables if missing and returns the store. */
  static async open(database: Database): Promise<OutboxStore> {
    await applySchema(database, OUTBOX_SCHEMA)
    return new OutboxStore(database)
  }

  /**
   * Appends `events` in order, atomically: each gets the next position of the outbox and the
   * next sequence number of its connection.
   *
   * Three statements whatever the batch size (a group commit; on PostgreSQL each statement is a
   * round trip): the `event_positions` row moves up by the whole batch, each connection's
   * `event_sequences` row by its number of events (one multi-row upsert), and one multi-row
   * INSERT places every event below the new counters: the `i`-th event of `n` at
   * `last_position - n + i`, an event followed by `k` more of its connection in the batch at
   * `last_seq - k`. On PostgreSQL the first UPDATE holds the positions row's lock until the
   * transaction commits (and a lock is released only once its transaction is visible), so a
   * concurrent append waits, then continues from the committed value: positions become visible in
   * increasing order, without gaps, which the `/v1/events` cursor (`eventsAfterPosition`) relies
   * on; every append takes that lock first, so the sequence rows' locks never deadlock. On SQLite
   * the batch runs alone on the single writer.
   *
   * An event whose `dedupeKey` is already stored is not written again: the stored event is
   * returned in its place (with the stored id). Two processes appending the same key at once: the
   * unique index fails one batch, which is read and written again (at most three times).
   * @returns the stored events, in the order given.
   */
  async append(events: readonly NewEvent[]): Promise<PublishedEvent[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendOnce(events)
      } catch (error) {
        // another process stored one of the keys between the read and the write: read again
        if (attempt >= 3 || constraintViolation(error) !== 'unique' || !events.some((e) => e.dedupeKey)) throw error
      }
    }
  }

  /**
   * `append`'s one attempt: events whose `dedupeKey` is stored already (or appears earlier in
   * `events`) are not written; the stored event stands for them in the result (its id differs
   * from the one given: that is how a caller tells).
   */
  private async appendOnce(events: readonly NewEvent[]): Promise<PublishedEvent[]> {
    const keys = [...new Set(events.flatMap((e) => (e.dedupeKey ? [e.dedupeKey] : [])))]
    const byKey = new Map<string, PublishedEvent>()
    if (keys.length > 0) {
      const rows = await selectRows<OutboxRow & { dedupe_key: string }>(
        this.database,
        sql`SELECT ${EVENT_COLUMNS}, dedupe_key FROM event_outbox WHERE dedupe_key IN ${keys}`,
      )
      for (const row of rows) byKey.set(row.dedupe_key, toPublished(row))
    }
    const fresh: NewEvent[] = []
    const freshOfKey = new Map<string, string>()
    for (const e of events) {
      if (e.dedupeKey && (byKey.has(e.dedupeKey) || freshOfKey.has(e.dedupeKey))) continue
      if (e.dedupeKey) freshOfKey.set(e.dedupeKey, e.id)
      fresh.push(e)
    }
    const stored = new Map((await this.insert(fresh)).map((published) => [published.id, published]))
    return events.map((e) => (e.dedupeKey ? (byKey.get(e.dedupeKey) ?? stored.get(freshOfKey.get(e.dedupeKey)!)!) : stored.get(e.id)!))
  }

  /** Writes `events` as the module comment of `append` says. */
  private async insert(events: readonly NewEvent[]): Promise<PublishedEvent[]> {
    if (events.length === 0) return []
    const now = Date.now()
    const count = events.length
    const perConnection = new Map<string, number>()
    for (const { connectionId } of events) perConnection.set(connectionId, (perConnection.get(connectionId) ?? 0) + 1)
    const later = new Map(perConnection) // events of the connection from this one on
    const rows = events.map(({ id, connectionId, event, dedupeKey }, i) => {
      const fromHere = later.get(connectionId)!
      later.set(connectionId, fromHere - 1)
      // VALUES columns are column1… in both dialects; numbers are cast (PostgreSQL types bound
      // parameters in VALUES as text)
      return sql`(CAST(${i + 1} AS BIGINT), ${id}, ${connectionId}, CAST(${fromHere - 1} AS BIGINT), ${event.type}, ${JSON.stringify(event)},
        CAST(${dedupeKey ?? null} AS TEXT))`
    })
    const counters = [...perConnection].map(([connectionId, n]) => sql`(${connectionId}, CAST(${n} AS BIGINT))`)
    const [, , inserted] = await returnAtomically<{ id: string; position: Integer; seq: Integer }>(this.database, [
      sql`UPDATE event_positions SET last_position = last_position + ${count} WHERE id = 'outbox'`,
      sql`INSERT INTO event_sequences (connection_id, last_seq) VALUES ${sql.join(counters, sql`, `)}
        ON CONFLICT (connection_id) DO UPDATE SET last_seq = event_sequences.last_seq + excluded.last_seq`,
      sql`INSERT INTO event_outbox (position, id, connection_id, seq, topic, body, created_at, dedupe_key)
        SELECT (SELECT last_position FROM event_positions WHERE id = 'outbox') - ${count} + v.column1, v.column2, v.column3,
          s.last_seq - v.column4, v.column5, v.column6, ${now}, v.column7
        FROM (VALUES ${sql.join(rows, sql`, `)}) AS v JOIN event_sequences s ON s.connection_id = v.column3
        RETURNING id, position, seq`,
    ])
    const stored = new Map(inserted!.map((row) => [row.id, row]))
    return events.map(({ id, connectionId, event }) => {
      const row = stored.get(id)!
      return { id, connectionId, seq: Number(row.seq), position: Number(row.position), createdAt: now, event }
    })
  }

  /** The stored event with `id`, if any. */
  async event(id: string): Promise<PublishedEvent | undefined> {
    const [row] = await selectRows<OutboxRow>(this.database, sql`SELECT ${EVENT_COLUMNS} FROM event_outbox WHERE id = ${id}`)
    return row && toPublished(row)
  }

  /**
   * Overwrites the `content` of the `message-received` events of `connectionId` whose message id
   * is `messageId` with `marker` (the `redact-message` tunnel command): the one change an event
   * ever gets after it is written. The event is found by its dedupe key
   * (`receivedMessageDedupeKey`), or, stored before the outbox's step 3, among the connection's
   * events without one (step 7's partial index).
   * @returns how many events were changed.
   */
  async redactReceivedMessage(connectionId: string, messageId: string, marker: string): Promise<number> {
    const rows = await selectRows<{ id: string; body: string }>(
      this.database,
      sql`SELECT id, body FROM event_outbox WHERE dedupe_key = ${receivedMessageDedupeKey(connectionId, messageId)}
      UNION ALL
      SELECT id, body FROM event_outbox
        WHERE connection_id = ${connectionId} AND topic = 'message-received' AND dedupe_key IS NULL`,
    )
    let changed = 0
    for (const row of rows) {
      const event = JSON.parse(row.body) as { message?: { id?: string; content?: unknown } }
      if (event.message?.id !== messageId || event.message.content === marker) continue
      event.message.content = marker
      await execute(this.database, sql`UPDATE event_outbox SET body = ${JSON.stringify(event)} WHERE id = ${row.id}`)
      changed++
    }
    return changed
  }

  /** Events of `connectionId` after `afterSeq` and after `afterPosition`, in sequence order. */
  async eventsAfter(connectionId: string, afterSeq: number, afterPosition: number, limit: number): Promise<PublishedEvent[]> {
    const rows = await selectRows<OutboxRow>(
      this.database,
      sql`SELECT ${EVENT_COLUMNS} FROM event_outbox
      WHERE connection_id = ${connectionId} AND seq > ${afterSeq} AND position > ${afterPosition}
      ORDER BY seq LIMIT ${limit}`,
    )
    return rows.map(toPublished)
  }

  /**
   * Registers `name` (once): it will receive events appended from now on. A subscriber marked
   * absent (`markAbsent`) is present again.
   * @returns its start position (events at or below it are not for it).
   */
  async addSubscriber(name: string): Promise<number> {
    await execute(
      this.database,
      sql`INSERT INTO event_subscribers (name, start_position, created_at)
      VALUES (${name}, (SELECT last_position FROM event_positions WHERE id = 'outbox'), ${Date.now()})
      ON CONFLICT (name) DO UPDATE SET absent_since = NULL WHERE event_subscribers.absent_since IS NOT NULL`,
    )
    const [row] = await selectRows<{ start_position: Integer }>(
      this.database,
      sql`SELECT start_position FROM event_subscribers WHERE name = ${name}`,
    )
    return Number(row!.start_position)
  }

  /** Forgets `name`, its cursors and its dead letters. */
  async removeSubscriber(name: string): Promise<void> {
    await runAtomically(this.database, [
      sql`DELETE FROM event_cursors WHERE subscriber = ${name}`,
      sql`DELETE FROM event_dead_letters WHERE subscriber = ${name}`,
      sql`DELETE FROM event_subscribers WHERE name = ${name}`,
    ])
  }

  /**
   * Marks the subscribers `names` absent from the configuration as of `now` (ms since the epoch),
   * unless already marked earlier; `addSubscriber` marks one present again. An absent subscriber
   * keeps its cursors, and holds its events back from `pruneDelivered` only until it has been
   * absent for longer than the retention period.
   */
  async markAbsent(names: readonly string[], now = Date.now()): Promise<void> {
    if (names.length === 0) return
    await execute(this.database, sql`UPDATE event_subscribers SET absent_since = ${now} WHERE name IN ${names} AND absent_since IS NULL`)
  }

  /** The names of every subscriber the outbox keeps cursors for (`event_subscribers`), running or not. */
  async subscribers(): Promise<string[]> {
    const rows = await selectRows<{ name: string }>(this.database, sql`SELECT name FROM event_subscribers ORDER BY name`)
    return rows.map((row) => row.name)
  }

  /**
   * Connections where `subscriber` has work: events not yet delivered to it (after its cursor, or
   * after the events that predate it where its lane has no cursor yet), or dead letters being
   * replayed. Used at start-up to resume every lane, and at every cluster round on PostgreSQL for
   * the events other instances appended. Reads only the events above its lag floor (`pendingAboveFloors`):
   * what was appended since the floor last rose, not every lane.
   */
  async connectionsWithWork(subscriber: string): Promise<string[]> {
    const lanes = await this.pendingAboveFloors({ subscriber, perLane: true })
    const replaying = await selectRows<{ connection_id: string }>(
      this.database,
      sql`SELECT DISTINCT connection_id FROM event_dead_letters WHERE subscriber = ${subscriber} AND status = 'replaying'`,
    )
    return [...new Set([...lanes.flatMap((lane) => lane.connectionId ?? []), ...replaying.map((row) => row.connection_id)])]
  }

  /**
   * The cursor of `subscriber` in `connectionId`, created on first use just past the events
   * that predate the subscriber.
   */
  async cursor(subscriber: string, connectionId: string, startPosition: number): Promise<Cursor> {
    const select = sql`SELECT delivered_seq, attempts, next_attempt_at, last_error FROM event_cursors
      WHERE subscriber = ${subscriber} AND connection_id = ${connectionId}`
    let [row] = await selectRows<CursorRow>(this.database, select)
    if (!row) {
      await execute(
        this.database,
        sql`INSERT INTO event_cursors (subscriber, connection_id, delivered_seq)
        VALUES (${subscriber}, ${connectionId},
          (SELECT COALESCE(MAX(seq), 0) FROM event_outbox WHERE connection_id = ${connectionId} AND position <= ${startPosition}))
        ON CONFLICT (subscriber, connection_id) DO NOTHING`,
      )
      ;[row] = await selectRows<CursorRow>(this.database, select)
    }
    return {
      deliveredSeq: Number(row!.delivered_seq),
      attempts: Number(row!.attempts),
      nextAttemptAt: Number(row!.next_attempt_at),
      lastError: row!.last_error,
    }
  }

  /**
   * Moves cursors forward (acknowledged events, or events not for the subscriber) and clears
   * their retry state, all in one statement. A cursor never moves back.
   */
  async advance(moves: readonly { subscriber: string; connectionId: string; seq: number }[]): Promise<void> {
    if (moves.length === 0) return
    const rows = moves.map((m) => sql`(${m.subscriber}, ${m.connectionId}, CAST(${m.seq} AS BIGINT))`)
    // one statement for every lane (VALUES columns are column1… in both dialects)
    await execute(
      this.database,
      sql`UPDATE event_cursors SET delivered_seq = v.column3, attempts = 0, next_attempt_at = 0, last_error = NULL
      FROM (VALUES ${sql.join(rows, sql`, `)}) AS v
      WHERE event_cursors.subscriber = v.column1 AND event_cursors.connection_id = v.column2 AND event_cursors.delivered_seq < v.column3`,
    )
  }

  /** Records a failed attempt at the head: `attempts` so far and when to try next (ms since the epoch). */
  async scheduleRetry(subscriber: string, connectionId: string, attempts: number, nextAttemptAt: number, lastError: string): Promise<void> {
    await execute(
      this.database,
      sql`UPDATE event_cursors SET attempts = ${attempts}, next_attempt_at = ${nextAttemptAt}, last_error = ${lastError}
      WHERE subscriber = ${subscriber} AND connection_id = ${connectionId}`,
    )
  }

  /** Dead-letters the head event `published` and moves the cursor past it, atomically. */
  async deadLetter(
    subscriber: string,
    published: PublishedEvent,
    reason: DeadLetterReason,
    attempts: number,
    lastError: string,
  ): Promise<void> {
    const now = Date.now()
    await runAtomically(this.database, [
      sql`INSERT INTO event_dead_letters (${DEAD_LETTER_COLUMNS}) VALUES (${randomUUID()}, ${subscriber}, ${published.id},
        ${published.connectionId}, ${published.seq}, ${published.event.type}, ${reason}, 'dead', ${attempts}, ${lastError}, ${now}, ${now})`,
      this.advanceStatement(subscriber, published.connectionId, published.seq),
    ])
  }

  /** Dead letters of `subscriber` in `connectionId` waiting to be replayed, oldest event first. */
  async replaysOf(subscriber: string, connectionId: string): Promise<DeadLetter[]> {
    const rows = await selectRows<DeadLetterRow>(
      this.database,
      sql`SELECT ${DEAD_LETTER_COLUMNS} FROM event_dead_letters
      WHERE subscriber = ${subscriber} AND connection_id = ${connectionId} AND status = 'replaying' ORDER BY seq`,
    )
    return rows.map(toDeadLetter)
  }

  /**
   * Ends a replay: `replayed` when acknowledged, back to `dead` (with the new reason, attempts and
   * error) when it failed again; the cursor's retry state is cleared either way.
   */
  async finishReplay(
    letter: DeadLetter,
    outcome: { status: 'replayed' } | { status: 'dead'; reason: DeadLetterReason; attempts: number; lastError: string },
  ): Promise<void> {
    const set =
      outcome.status === 'replayed'
        ? sql`status = 'replayed'`
        : sql`status = 'dead', reason = ${outcome.reason}, attempts = ${outcome.attempts}, last_error = ${outcome.lastError}`
    await runAtomically(this.database, [
      sql`UPDATE event_dead_letters SET ${set}, updated_at = ${Date.now()} WHERE id = ${letter.id}`,
      sql`UPDATE event_cursors SET attempts = 0, next_attempt_at = 0, last_error = NULL
        WHERE subscriber = ${letter.subscriber} AND connection_id = ${letter.connectionId}`,
    ])
  }

  /** Dead letters matching `query`, newest first. */
  async listDeadLetters(query: DeadLetterQuery): Promise<DeadLetter[]> {
    const conditions: SQL[] = []
    if (query.subscriber) conditions.push(sql`subscriber = ${query.subscriber}`)
    if (query.connectionId) conditions.push(sql`connection_id = ${query.connectionId}`)
    if (query.status) conditions.push(sql`status = ${query.status}`)
    if (query.before !== undefined) conditions.push(sql`created_at < ${query.before}`)
    if (query.after) conditions.push(afterPosition('event_dead_letters', query.after))
    const rows = await selectRows<DeadLetterRow>(
      this.database,
      sql`SELECT ${DEAD_LETTER_COLUMNS} FROM event_dead_letters
      ${whereAll(conditions)} ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`,
    )
    return rows.map(toDeadLetter)
  }

  /** The dead letter `id`, if any. */
  async deadLetterById(id: string): Promise<DeadLetter | undefined> {
    const [row] = await selectRows<DeadLetterRow>(
      this.database,
      sql`SELECT ${DEAD_LETTER_COLUMNS} FROM event_dead_letters WHERE id = ${id}`,
    )
    return row && toDeadLetter(row)
  }

  /**
   * Marks the dead letter `id` for replay (again, if a replay is already owed).
   * @returns the updated dead letter, or undefined when there is no such dead letter.
   */
  async requestReplay(id: string): Promise<DeadLetter | undefined> {
    const [row] = await selectRows<DeadLetterRow>(
      this.database,
      sql`UPDATE event_dead_letters SET status = 'replaying', updated_at = ${Date.now()}
      WHERE id = ${id} RETURNING ${DEAD_LETTER_COLUMNS}`,
    )
    return row && toDeadLetter(row)
  }

  /**
   * Resolves once the events stored so far (and every other commit) are durable: what a
   * delivery waits for before an event leaves the process (`Database.syncToDisk`).
   */
  syncToDisk(): Promise<void> {
    return this.database.syncToDisk()
  }

  /** The position of the newest event appended (even if since pruned), 0 before the first. */
  async newestPosition(): Promise<number> {
    const [row] = await selectRows<{ position: Integer | null }>(
      this.database,
      sql`SELECT last_position AS position FROM event_positions WHERE id = 'outbox'`,
    )
    return Number(row?.position ?? 0)
  }

  /**
   * Deletes up to `limit` events, oldest first, appended before `before` (ms since the epoch)
   * that no subscriber still needs: every subscriber the event is for (added before it, and not
   * absent since before `before`, see `markAbsent`) has its cursor at or past it, and no dead
   * letter of it waits (`dead` or `replaying`). Moves the `event_pruned` mark in the same
   * transaction.
   * @returns how many events were deleted (fewer than `limit`: nothing more to prune now).
   */
  async pruneDelivered(before: number, limit: number): Promise<number> {
    const candidates = await selectRows<{ position: Integer; created_at: Integer }>(
      this.database,
      sql`SELECT o.position, o.created_at FROM event_outbox o
      WHERE o.created_at < ${before}
        AND NOT EXISTS (SELECT 1 FROM event_subscribers s WHERE s.start_position < o.position
          AND (s.absent_since IS NULL OR s.absent_since >= ${before})
          AND NOT EXISTS (SELECT 1 FROM event_cursors c
            WHERE c.subscriber = s.name AND c.connection_id = o.connection_id AND c.delivered_seq >= o.seq))
        AND NOT EXISTS (SELECT 1 FROM event_dead_letters d WHERE d.event_id = o.id AND d.status <> 'replayed')
      ORDER BY o.position LIMIT ${limit}`,
    )
    if (candidates.length === 0) return 0
    const positions = candidates.map((row) => Number(row.position))
    const newest = Math.max(...positions)
    const newestCreatedAt = Math.max(...candidates.map((row) => Number(row.created_at)))
    const [deleted] = await runAtomically(this.database, [
      // cursors only move forward; a replay asked for meanwhile keeps its event
      sql`DELETE FROM event_outbox WHERE position IN ${positions}
        AND NOT EXISTS (SELECT 1 FROM event_dead_letters d WHERE d.event_id = event_outbox.id AND d.status <> 'replayed')`,
      sql`INSERT INTO event_pruned (id, position, created_at) VALUES ('outbox', ${newest}, ${newestCreatedAt})
        ON CONFLICT (id) DO UPDATE SET
          position = CASE WHEN excluded.position > event_pruned.position THEN excluded.position ELSE event_pruned.position END,
          created_at = CASE WHEN excluded.created_at > event_pruned.created_at THEN excluded.created_at ELSE event_pruned.created_at END`,
    ])
    return deleted!
  }

  /**
   * Deletes up to `limit` dead letters last changed before the given times (ms since the epoch;
   * undefined: kept forever): `dead` ones before `dead`, `replayed` ones before `replayed`. Those
   * `replaying` are kept.
   * @returns how many were deleted.
   */
  async pruneDeadLetters(before: { dead?: number; replayed?: number }, limit: number): Promise<number> {
    const conditions: SQL[] = []
    if (before.dead !== undefined) conditions.push(sql`(status = 'dead' AND updated_at < ${before.dead})`)
    if (before.replayed !== undefined) conditions.push(sql`(status = 'replayed' AND updated_at < ${before.replayed})`)
    if (conditions.length === 0) return 0
    return execute(
      this.database,
      sql`DELETE FROM event_dead_letters WHERE id IN (
        SELECT id FROM event_dead_letters WHERE ${sql.join(conditions, sql` OR `)} ORDER BY updated_at LIMIT ${limit})`,
    )
  }

  /**
   * The retention pruner's mark: the newest position it deleted (events at or below it may be
   * gone) and the newest `created_at` of the deleted events; undefined when nothing was pruned.
   */
  async prunedThrough(): Promise<{ position: number; createdAt: number } | undefined> {
    const [row] = await selectRows<{ position: Integer; created_at: Integer }>(
      this.database,
      sql`SELECT position, created_at FROM event_pruned WHERE id = 'outbox'`,
    )
    return row && { position: Number(row.position), createdAt: Number(row.created_at) }
  }

  /** The recovery checkpoint of writer `id` (`events/recovery.ts`), undefined before the first. */
  async recoveryCheckpoint(id: string): Promise<RecoveryCheckpoint | undefined> {
    const [row] = await selectRows<{ through: Integer; position: Integer }>(
      this.database,
      sql`SELECT through, position FROM event_recovery_checkpoint WHERE id = ${id}`,
    )
    return row && { through: Number(row.through), position: Number(row.position) }
  }

  /** Moves the recovery checkpoint of writer `id` to `checkpoint`, never back. */
  async saveRecoveryCheckpoint(id: string, checkpoint: RecoveryCheckpoint): Promise<void> {
    await execute(
      this.database,
      sql`INSERT INTO event_recovery_checkpoint (id, through, position) VALUES (${id}, ${checkpoint.through}, ${checkpoint.position})
        ON CONFLICT (id) DO UPDATE SET through = excluded.through, position = excluded.position
        WHERE excluded.through > event_recovery_checkpoint.through`,
    )
  }

  /**
   * The newest event of `topic` in `connectionId` that `matches`, among those appended at or after
   * `notBefore` (ms since the epoch), read newest first a page at a time through the lane's
   * `(connection_id, seq)` index: how recovery finds the last state reported for a key before
   * its window.
   */
  async newestEventOf(
    connectionId: string,
    topic: string,
    notBefore: number,
    matches: (event: AgentEvent) => boolean,
  ): Promise<PublishedEvent | undefined> {
    const page = 100
    for (let beforeSeq = Number.MAX_SAFE_INTEGER; ; ) {
      const rows = await selectRows<OutboxRow>(
        this.database,
        sql`SELECT ${EVENT_COLUMNS} FROM event_outbox
        WHERE connection_id = ${connectionId} AND seq < ${beforeSeq} AND topic = ${topic}
        ORDER BY seq DESC LIMIT ${page}`,
      )
      for (const row of rows) {
        const published = toPublished(row)
        if (published.createdAt < notBefore) return undefined
        if (matches(published.event)) return published
      }
      if (rows.length < page) return undefined
      beforeSeq = Number(rows.at(-1)!.seq)
    }
  }

  /**
   * How far each subscriber is behind: `pending`, the events after its cursors (an event of a
   * lane whose cursor is not made yet counts as pending too); `oldestCreatedAt`, when the oldest of
   * them was appended (ms since the epoch). Subscribers with nothing pending are absent. Reads only
   * the events above each subscriber's lag floor (`pendingAboveFloors`), not every lane.
   */
  async lag(): Promise<{ subscriber: string; pending: number; oldestCreatedAt: number }[]> {
    return (await this.pendingAboveFloors({ perLane: false })).map(({ subscriber, pending, oldestCreatedAt }) => ({
      subscriber,
      pending,
      oldestCreatedAt,
    }))
  }

  /**
   * The events not yet delivered to every subscriber (to `subscriber` only, when given), counted
   * per subscriber, or per lane with `perLane` (`connectionId` set): `pending` events, the oldest
   * appended at `oldestCreatedAt` (ms since the epoch). Subscribers and lanes with none are absent.
   *
   * Reads only the events above each subscriber's lag floor (`event_subscribers.lag_floor`, outbox
   * step 6: every event at or below it was delivered to the subscriber, dead-lettered or not for
   * it), each against its lane's cursor (an event of a lane with no cursor yet is pending: the
   * cursor is made past the events that predate the subscriber only). Then raises each floor to
   * just below its oldest pending event, or to the head read before the events when none is
   * pending: a call costs the events appended since the last one, plus the backlog of a
   * subscriber that is behind, not the number of lanes (43 ms at 43,000 cursors and 1.7 s at
   * 285,000 for a join of every cursor with its lane). The head is read first, so an event
   * appended meanwhile is above it (positions are handed out in commit order, `append`); floors
   * only rise (cursors never move back), whichever instance raises them. The events are read in
   * a subquery bounded by `LAG_SCAN_EVENTS`: grouped by lane straight from the table, SQLite read
   * the whole outbox in the order of its `(connection_id, seq)` index to spare itself a sort.
   */
  private async pendingAboveFloors(options: {
    subscriber?: string
    perLane: boolean
  }): Promise<{ subscriber: string; connectionId?: string; pending: number; oldestCreatedAt: number }[]> {
    const { subscriber, perLane } = options
    const [head] = await selectRows<{ last_position: Integer }>(
      this.database,
      sql`SELECT last_position FROM event_positions WHERE id = 'outbox'`,
    )
    const headPosition = Number(head?.last_position ?? 0)
    const floors = await selectRows<{ name: string; floor: Integer }>(
      this.database,
      sql`SELECT name, COALESCE(lag_floor, start_position) AS floor FROM event_subscribers
        ${subscriber === undefined ? sql`` : sql`WHERE name = ${subscriber}`}`,
    )
    // One read per subscriber, its floor a constant: PostgreSQL then reads the outbox by
    // position; with the floor taken from the joined row it read the whole table (104 ms at
    // 90,000 events with nothing pending). Of pending events at most `LAG_SCAN_EVENTS` are read:
    // a subscriber further behind is counted from its lanes instead (`pendingFromLanes`), so a
    // long outage costs what a scan of its lanes costs, not its whole backlog at every call.
    const rows: (PendingRow & { subscriber: string })[] = []
    const raised: { name: string; next: number }[] = []
    for (const { name, floor } of floors) {
      // Window after window of at most LAG_SCAN_EVENTS events: a window whose events were all
      // delivered moves the floor past it for good, so the next one is read at once (after the
      // upgrade, the first call reads the history once); a window with pending events ends it.
      let from = Number(floor)
      for (;;) {
        const [scanned] = await selectRows<{ events: Integer; last_position: Integer | null }>(
          this.database,
          sql`SELECT COUNT(*) AS events, MAX(position) AS last_position FROM (SELECT position FROM event_outbox
            WHERE position > ${from} ORDER BY position LIMIT ${LAG_SCAN_EVENTS}) AS above`,
        )
        const complete = Number(scanned?.events ?? 0) < LAG_SCAN_EVENTS
        const read = await selectRows<PendingRow>(
          this.database,
          sql`
          SELECT ${perLane ? sql`o.connection_id AS connection_id, ` : sql``}COUNT(*) AS pending, MIN(o.created_at) AS oldest,
              MIN(o.position) AS first_position
            FROM (SELECT position, connection_id, seq, created_at FROM event_outbox
              WHERE position > ${from} ORDER BY position LIMIT ${LAG_SCAN_EVENTS}) AS o
            LEFT JOIN event_cursors c ON c.subscriber = ${name} AND c.connection_id = o.connection_id
            WHERE (c.delivered_seq IS NULL OR o.seq > c.delivered_seq)
            ${perLane ? sql`GROUP BY o.connection_id` : sql``}`,
        )
        const found = read.filter((row) => Number(row.pending) > 0)
        if (found.length === 0 && !complete) {
          from = Number(scanned!.last_position)
          continue
        }
        // The floor rises to below the first pending event, else (all read, none pending) to the head.
        const next = found.length ? Math.min(...found.map((row) => Number(row.first_position))) - 1 : Math.max(headPosition, from)
        if (next > Number(floor)) raised.push({ name, next })
        if (complete) rows.push(...found.map((row) => ({ subscriber: name, ...row })))
        else rows.push(...(await this.pendingFromLanes(name, perLane)).map((row) => ({ subscriber: name, ...row })))
        break
      }
    }

    if (raised.length > 0)
      await runAtomically(
        this.database,
        raised.map(
          ({ name, next }) =>
            sql`UPDATE event_subscribers SET lag_floor = ${next} WHERE name = ${name} AND COALESCE(lag_floor, start_position) < ${next}`,
        ),
      )
    return rows.map((row) => ({
      subscriber: row.subscriber,
      ...(row.connection_id !== undefined && { connectionId: row.connection_id }),
      pending: Number(row.pending),
      oldestCreatedAt: Number(row.oldest ?? Date.now()),
    }))
  }
  /**
   * `subscriber`'s pending events counted from its lanes, for a subscriber too far behind to read
   * its backlog above the floor: a scan of its lanes, not of its events. With `perLane`, one row
   * per lane with work: its cursor behind its lane's last sequence number, or no cursor yet and a
   * newest event after the subscriber's start (the first lane run makes the cursor); else one row,
   * the events after its cursors and the oldest of them (absent when none is pending).
   */
  private async pendingFromLanes(subscriber: string, perLane: boolean): Promise<PendingRow[]> {
    if (perLane) {
      const lanes = await selectRows<{ connection_id: string; pending: Integer }>(
        this.database,
        sql`
        SELECT s.connection_id AS connection_id, s.last_seq - COALESCE(c.delivered_seq, 0) AS pending FROM event_sequences s
          LEFT JOIN event_cursors c ON c.subscriber = ${subscriber} AND c.connection_id = s.connection_id
          WHERE c.delivered_seq < s.last_seq
            OR (c.delivered_seq IS NULL AND EXISTS (SELECT 1 FROM event_outbox o WHERE o.connection_id = s.connection_id
              AND o.seq = s.last_seq AND o.position > (SELECT start_position FROM event_subscribers WHERE name = ${subscriber})))`,
      )
      return lanes.map((lane) => ({ ...lane, oldest: null, first_position: null }))
    }
    const [row] = await selectRows<{ pending: Integer | null; oldest: Integer | null }>(
      this.database,
      sql`
      SELECT SUM(s.last_seq - c.delivered_seq) AS pending, MIN(o.created_at) AS oldest
        FROM event_cursors c
        JOIN event_sequences s ON s.connection_id = c.connection_id
        LEFT JOIN event_outbox o ON o.connection_id = c.connection_id AND o.seq = c.delivered_seq + 1
        WHERE c.subscriber = ${subscriber} AND s.last_seq > c.delivered_seq`,
    )
    return row && Number(row.pending ?? 0) > 0 ? [{ pending: row.pending ?? 0, oldest: row.oldest, first_position: null }] : []
  }

  /**
   * Events after `afterPosition` in outbox order (all connections), only those of `topics` and
   * `connectionId` when given: the read of event streams that resume from a position.
   */
  async eventsAfterPosition(
    afterPosition: number,
    filter: { topics?: readonly string[]; connectionId?: string },
    limit: number,
  ): Promise<PublishedEvent[]> {
    if (filter.topics?.length === 0) return []
    const conditions: SQL[] = [sql`position > ${afterPosition}`]
    if (filter.topics) conditions.push(sql`topic IN ${[...filter.topics]}`)
    if (filter.connectionId) conditions.push(sql`connection_id = ${filter.connectionId}`)
    const rows = await selectRows<OutboxRow>(
      this.database,
      sql`SELECT ${EVENT_COLUMNS} FROM event_outbox
      ${whereAll(conditions)} ORDER BY position LIMIT ${limit}`,
    )
    return rows.map(toPublished)
  }

  private advanceStatement(subscriber: string, connectionId: string, seq: number): SQL {
    return sql`UPDATE event_cursors SET delivered_seq = ${seq}, attempts = 0, next_attempt_at = 0, last_error = NULL
      WHERE subscriber = ${subscriber} AND connection_id = ${connectionId} AND delivered_seq < ${seq}`
  }
}
