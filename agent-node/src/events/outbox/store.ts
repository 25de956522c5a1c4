/**
 * Every query of the event outbox, in one module (tables: `schema.ts`). Writes that must agree
 * (an event and its sequence number; a dead letter and the cursor moving past it) run as one
 * atomic batch. The SQL is what SQLite and PostgreSQL both speak (`ON CONFLICT`, `RETURNING`,
 * scalar subqueries); porting to PostgreSQL means swapping the drizzle table builders and
 * `runAtomically`.
 */
import { randomUUID } from 'node:crypto'
import { and, asc, desc, eq, gt, inArray, lt, max, sql, type SQL } from 'drizzle-orm'
import type { AgentEvent } from '@parley/shared'
import type { Database } from '../../database/index.ts'
import { runAtomically, type Statements } from '../../wallet/storage/dialect.ts'
import {
  eventCursors,
  eventDeadLetters,
  eventOutbox,
  eventSequences,
  eventSubscribers,
  OUTBOX_SCHEMA_SQL,
  type DeadLetterReason,
  type DeadLetterStatus,
} from './schema.ts'

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

/** An event to append: its id is chosen by the caller so it is known before the write. */
export interface NewEvent {
  id: string
  connectionId: string
  event: AgentEvent
}

/** A subscriber's place in one connection (see `eventCursors`). */
export interface Cursor {
  deliveredSeq: number
  attempts: number
  /** Milliseconds since the epoch; 0 means "now". */
  nextAttemptAt: number
  lastError: string | null
}

export type DeadLetter = typeof eventDeadLetters.$inferSelect

/** Filters of `listDeadLetters`; `before` pages by `createdAt` (milliseconds), newest first. */
export interface DeadLetterQuery {
  subscriber?: string
  connectionId?: string
  status?: DeadLetterStatus
  before?: number
  limit: number
}

type OutboxRow = typeof eventOutbox.$inferSelect

function toPublished(row: OutboxRow): PublishedEvent {
  return {
    id: row.id,
    connectionId: row.connectionId,
    seq: row.seq,
    position: row.position,
    createdAt: row.createdAt,
    event: JSON.parse(row.body) as AgentEvent,
  }
}

export class OutboxStore {
  private constructor(private readonly db: Database['db']) {}

  /** Creates the tables if missing and returns the store. */
  static async open(database: Database): Promise<OutboxStore> {
    for (const statement of OUTBOX_SCHEMA_SQL) await database.db.run(sql.raw(statement))
    return new OutboxStore(database.db)
  }

  /**
   * Appends `events` in order, atomically: each gets the next sequence number of its connection.
   * @returns the stored events, in the order given.
   */
  async append(events: readonly NewEvent[]): Promise<PublishedEvent[]> {
    if (events.length === 0) return []
    const now = Date.now()
    const statements = events.flatMap(({ id, connectionId, event }) => [
      this.db.insert(eventSequences).values({ connectionId, lastSeq: 1 })
        .onConflictDoUpdate({ target: eventSequences.connectionId, set: { lastSeq: sql`${eventSequences.lastSeq} + 1` } }),
      this.db.insert(eventOutbox).values({
        id,
        connectionId,
        seq: sql`(SELECT ${eventSequences.lastSeq} FROM ${eventSequences} WHERE ${eventSequences.connectionId} = ${connectionId})`,
        topic: event.type,
        body: JSON.stringify(event),
        createdAt: now,
      }).returning(),
    ])
    const results = (await this.db.batch(statements as unknown as Statements)) as unknown as unknown[]
    return events.map((_, i) => toPublished((results[2 * i + 1] as OutboxRow[])[0]!))
  }

  /** The stored event with `id`, if any. */
  async event(id: string): Promise<PublishedEvent | undefined> {
    const [row] = await this.db.select().from(eventOutbox).where(eq(eventOutbox.id, id)).limit(1)
    return row && toPublished(row)
  }

  /** Events of `connectionId` after `afterSeq` and after `afterPosition`, in sequence order. */
  async eventsAfter(connectionId: string, afterSeq: number, afterPosition: number, limit: number): Promise<PublishedEvent[]> {
    const rows = await this.db.select().from(eventOutbox)
      .where(and(eq(eventOutbox.connectionId, connectionId), gt(eventOutbox.seq, afterSeq), gt(eventOutbox.position, afterPosition)))
      .orderBy(asc(eventOutbox.seq)).limit(limit)
    return rows.map(toPublished)
  }

  /**
   * Registers `name` (once): it will receive events appended from now on.
   * @returns its start position (events at or below it are not for it).
   */
  async addSubscriber(name: string): Promise<number> {
    const [newest] = await this.db.select({ position: max(eventOutbox.position) }).from(eventOutbox)
    await this.db.insert(eventSubscribers).values({ name, startPosition: newest?.position ?? 0, createdAt: Date.now() }).onConflictDoNothing()
    const [row] = await this.db.select().from(eventSubscribers).where(eq(eventSubscribers.name, name))
    return row!.startPosition
  }

  /** Forgets `name`, its cursors and its dead letters. */
  async removeSubscriber(name: string): Promise<void> {
    await runAtomically(this.db, [
      this.db.delete(eventCursors).where(eq(eventCursors.subscriber, name)),
      this.db.delete(eventDeadLetters).where(eq(eventDeadLetters.subscriber, name)),
      this.db.delete(eventSubscribers).where(eq(eventSubscribers.name, name)),
    ])
  }

  /**
   * Connections where `subscriber` may have work: events after its cursor (or no cursor yet:
   * the first lane run makes one, past the events that predate the subscriber), or dead letters
   * being replayed. Used at start-up to resume every lane.
   */
  async connectionsWithWork(subscriber: string): Promise<string[]> {
    const behind = await this.db.select({ connectionId: eventSequences.connectionId }).from(eventSequences)
      .leftJoin(eventCursors, and(eq(eventCursors.subscriber, subscriber), eq(eventCursors.connectionId, eventSequences.connectionId)))
      .where(sql`(${eventCursors.deliveredSeq} IS NULL OR ${eventCursors.deliveredSeq} < ${eventSequences.lastSeq})`)
    const replays = await this.db.selectDistinct({ connectionId: eventDeadLetters.connectionId }).from(eventDeadLetters)
      .where(and(eq(eventDeadLetters.subscriber, subscriber), eq(eventDeadLetters.status, 'replaying')))
    return [...new Set([...behind, ...replays].map((r) => r.connectionId))]
  }

  /**
   * The cursor of `subscriber` in `connectionId`, created on first use just past the events
   * that predate the subscriber.
   */
  async cursor(subscriber: string, connectionId: string, startPosition: number): Promise<Cursor> {
    const where = and(eq(eventCursors.subscriber, subscriber), eq(eventCursors.connectionId, connectionId))
    const [row] = await this.db.select().from(eventCursors).where(where)
    if (row) return row
    const [before] = await this.db.select({ seq: max(eventOutbox.seq) }).from(eventOutbox)
      .where(and(eq(eventOutbox.connectionId, connectionId), sql`${eventOutbox.position} <= ${startPosition}`))
    const cursor: Cursor = { deliveredSeq: before?.seq ?? 0, attempts: 0, nextAttemptAt: 0, lastError: null }
    await this.db.insert(eventCursors).values({ subscriber, connectionId, ...cursor }).onConflictDoNothing()
    return cursor
  }

  /**
   * Moves cursors forward (acknowledged events, or events not for the subscriber) and clears
   * their retry state, all in one transaction. A cursor never moves back.
   */
  async advance(moves: readonly { subscriber: string; connectionId: string; seq: number }[]): Promise<void> {
    if (moves.length === 0) return
    const [first, ...rest] = moves.map((m) => this.advanceStatement(m.subscriber, m.connectionId, m.seq))
    await runAtomically(this.db, [first!, ...rest])
  }

  /** Records a failed attempt at the head: `attempts` so far and when to try next (ms since the epoch). */
  async scheduleRetry(subscriber: string, connectionId: string, attempts: number, nextAttemptAt: number, lastError: string): Promise<void> {
    await this.db.update(eventCursors).set({ attempts, nextAttemptAt, lastError })
      .where(and(eq(eventCursors.subscriber, subscriber), eq(eventCursors.connectionId, connectionId)))
  }

  /** Dead-letters the head event `published` and moves the cursor past it, atomically. */
  async deadLetter(subscriber: string, published: PublishedEvent, reason: DeadLetterReason, attempts: number, lastError: string): Promise<void> {
    const now = Date.now()
    await runAtomically(this.db, [
      this.db.insert(eventDeadLetters).values({
        id: randomUUID(), subscriber, eventId: published.id, connectionId: published.connectionId, seq: published.seq,
        topic: published.event.type, reason, status: 'dead', attempts, lastError, createdAt: now, updatedAt: now,
      }),
      this.advanceStatement(subscriber, published.connectionId, published.seq),
    ])
  }

  /** Dead letters of `subscriber` in `connectionId` waiting to be replayed, oldest event first. */
  async replaysOf(subscriber: string, connectionId: string): Promise<DeadLetter[]> {
    return this.db.select().from(eventDeadLetters)
      .where(and(eq(eventDeadLetters.subscriber, subscriber), eq(eventDeadLetters.connectionId, connectionId), eq(eventDeadLetters.status, 'replaying')))
      .orderBy(asc(eventDeadLetters.seq))
  }

  /**
   * Ends a replay: `replayed` when acknowledged, back to `dead` (with the new reason, attempts and
   * error) when it failed again; the cursor's retry state is cleared either way.
   */
  async finishReplay(letter: DeadLetter, outcome: { status: 'replayed' } | { status: 'dead'; reason: DeadLetterReason; attempts: number; lastError: string }): Promise<void> {
    const { status, ...rest } = outcome
    await runAtomically(this.db, [
      this.db.update(eventDeadLetters).set({ status, ...rest, updatedAt: Date.now() }).where(eq(eventDeadLetters.id, letter.id)),
      this.db.update(eventCursors).set({ attempts: 0, nextAttemptAt: 0, lastError: null })
        .where(and(eq(eventCursors.subscriber, letter.subscriber), eq(eventCursors.connectionId, letter.connectionId))),
    ])
  }

  /** Dead letters matching `query`, newest first. */
  async listDeadLetters(query: DeadLetterQuery): Promise<DeadLetter[]> {
    const conditions: SQL[] = []
    if (query.subscriber) conditions.push(eq(eventDeadLetters.subscriber, query.subscriber))
    if (query.connectionId) conditions.push(eq(eventDeadLetters.connectionId, query.connectionId))
    if (query.status) conditions.push(eq(eventDeadLetters.status, query.status))
    if (query.before !== undefined) conditions.push(lt(eventDeadLetters.createdAt, query.before))
    return this.db.select().from(eventDeadLetters).where(and(...conditions))
      .orderBy(desc(eventDeadLetters.createdAt), desc(eventDeadLetters.id)).limit(query.limit)
  }

  /** The dead letter `id`, if any. */
  async deadLetterById(id: string): Promise<DeadLetter | undefined> {
    const [row] = await this.db.select().from(eventDeadLetters).where(eq(eventDeadLetters.id, id))
    return row
  }

  /**
   * Marks the dead letter `id` for replay unless it is already being replayed.
   * @returns the updated dead letter, or undefined when there is no such dead letter.
   */
  async requestReplay(id: string): Promise<DeadLetter | undefined> {
    await this.db.update(eventDeadLetters).set({ status: 'replaying', updatedAt: Date.now() }).where(eq(eventDeadLetters.id, id))
    return this.deadLetterById(id)
  }

  /** The position of the newest event, 0 when the outbox is empty. */
  async newestPosition(): Promise<number> {
    const [newest] = await this.db.select({ position: max(eventOutbox.position) }).from(eventOutbox)
    return newest?.position ?? 0
  }

  /**
   * Events after `afterPosition` in outbox order (all connections), only those of `topics` and
   * `connectionId` when given: the read of event streams that resume from a position.
   */
  async eventsAfterPosition(afterPosition: number, filter: { topics?: readonly string[]; connectionId?: string }, limit: number): Promise<PublishedEvent[]> {
    const conditions: SQL[] = [gt(eventOutbox.position, afterPosition)]
    if (filter.topics) conditions.push(inArray(eventOutbox.topic, [...filter.topics]))
    if (filter.connectionId) conditions.push(eq(eventOutbox.connectionId, filter.connectionId))
    const rows = await this.db.select().from(eventOutbox).where(and(...conditions)).orderBy(asc(eventOutbox.position)).limit(limit)
    return rows.map(toPublished)
  }

  private advanceStatement(subscriber: string, connectionId: string, seq: number) {
    return this.db.update(eventCursors).set({ deliveredSeq: seq, attempts: 0, nextAttemptAt: 0, lastError: null })
      .where(and(eq(eventCursors.subscriber, subscriber), eq(eventCursors.connectionId, connectionId), lt(eventCursors.deliveredSeq, seq)))
  }
}
