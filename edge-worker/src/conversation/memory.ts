/**
 * The memory window (manifest spec "memory"): the last `memory.window` messages the model sees.
 *
 * - `memory`: kept in the conversation object's memory, like an in-process store: gone when the
 *   runtime evicts the object (idle, code update, reset); the next message starts afresh. Only
 *   the newest messages are kept (twice the window), so a long chat neither grows the object's
 *   memory nor slows each turn.
 * - `kvstore`: read from the conversation record in the object's SQLite storage, so it survives
 *   eviction and restarts. `memory.redisUrl` is not needed: the Durable Object's storage is the
 *   persistent store.
 *
 * Either way the window before an event holds only messages of events with a lower `seq`, so a
 * late event takes its place in the conversation.
 */
import { and, desc, eq, inArray, lt } from 'drizzle-orm'
import { type Database, inlineLimit } from '../storage/index.ts'
import type { HistoryTurn } from '../turn/index.ts'
import { events, turns, type schema } from './schema.ts'

export interface MemoryWindow {
  /** The last `limit` messages of events with `seq` lower than `seq`, oldest first. */
  before(seq: number, limit: number): HistoryTurn[]
  /** Notes the messages of the event with `seq` once they are committed. */
  remember(seq: number, messages: readonly HistoryTurn[]): void
}

/**
 * Backend `memory`: an array in the object of at most `capacity` messages; the oldest (by `seq`)
 * leave first. An event later than `capacity` messages sees a shorter window than it would have.
 */
export class InMemoryWindow implements MemoryWindow {
  private readonly messages: { seq: number; turn: HistoryTurn }[] = []

  constructor(private readonly capacity: number) {}

  before(seq: number, limit: number): HistoryTurn[] {
    if (limit <= 0) return []
    return this.messages
      .filter((entry) => entry.seq < seq)
      .slice(-limit)
      .map((entry) => entry.turn)
  }

  remember(seq: number, messages: readonly HistoryTurn[]): void {
    // Keep `seq` order: a late event's messages go before those of higher events (stable).
    const at = this.messages.findIndex((entry) => entry.seq > seq)
    const entries = messages.map((turn) => ({ seq, turn }))
    if (at === -1) this.messages.push(...entries)
    else this.messages.splice(at, 0, ...entries)
    if (this.messages.length > this.capacity) this.messages.splice(0, this.messages.length - this.capacity)
  }
}

/** Backend `kvstore`: the conversation record in SQLite. */
export class StoredWindow implements MemoryWindow {
  constructor(private readonly db: Database<typeof schema>) {}

  before(seq: number, limit: number): HistoryTurn[] {
    if (limit <= 0) return []
    return this.db
      .select({ role: turns.role, content: turns.content })
      .from(turns)
      .innerJoin(events, eq(events.position, turns.eventPosition))
      .where(and(lt(events.seq, seq), inArray(turns.role, ['user', 'assistant'])))
      .orderBy(desc(events.seq), desc(turns.id))
      .limit(inlineLimit(limit))
      .all()
      .reverse() as HistoryTurn[]
  }

  remember(): void {
    // The record is already in SQLite.
  }
}
