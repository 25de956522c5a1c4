/**
 * Retention of the conversation record (`CONVERSATION_RETENTION_DAYS`, conversation/retention.ts)
 * in a real Conversation object's SQLite storage: what a pruning deletes and keeps, and that a
 * pass (the object's alarm) prunes and re-arms the alarm for the next row falling due.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { drizzle } from 'drizzle-orm/durable-sqlite'
import { describe, expect, it } from 'vitest'
import { conversationFor } from '../src/bindings.ts'
import { Conversation } from '../src/conversation/Conversation.ts'
import { nextPruneAt, PRUNE_BATCH, pruneRecord } from '../src/conversation/retention.ts'
import { schema } from '../src/conversation/schema.ts'
import { newSession } from '../src/session/index.ts'
import { storeExchange } from './support/record.ts'

const DAY_MS = 86_400_000

/** Logs an effect (a command for the tunnel) of `eventId` at `at` ms, sent then or not yet. */
function storeEffect(sql: SqlStorage, eventId: string, at: number, sent: boolean): void {
  sql.exec(
    'INSERT INTO effects (command_id, idempotency_key, command, created_at, sent_at) VALUES (?, ?, ?, ?, ?)',
    crypto.randomUUID(),
    `${eventId}:0`,
    JSON.stringify({ name: 'send-message', message: { type: 'text', content: 'hi' } }),
    at,
    sent ? at : null,
  )
}

/** Stores an event of `seq` received at `at` ms and not handled yet. */
function storePending(sql: SqlStorage, id: string, seq: number, at: number): void {
  sql.exec(
    "INSERT INTO events (id, seq, type, body, received_at) VALUES (?, ?, 'message-received', ?, ?)",
    id,
    seq,
    JSON.stringify({ type: 'message-received', message: { type: 'text', content: id } }),
    at,
  )
}

const ids = (sql: SqlStorage, table: 'events' | 'effects') =>
  sql
    .exec<{ key: string }>(
      table === 'events'
        ? 'SELECT id AS key FROM events ORDER BY position'
        : 'SELECT idempotency_key AS key FROM effects ORDER BY position',
    )
    .toArray()
    .map((row) => row.key)
const turnContents = (sql: SqlStorage) =>
  sql
    .exec<{ content: string }>('SELECT content FROM turns ORDER BY id')
    .toArray()
    .map((row) => row.content)

describe('conversation record retention', () => {
  it('deletes handled events with their turns and sent commands older than the cutoff, and keeps the rest', async () => {
    await runInDurableObject(conversationFor(env, crypto.randomUUID()), async (_instance, state) => {
      const { sql } = state.storage
      storeExchange(sql, { id: 'old-1', seq: 1, user: 'u1', assistant: 'a1', at: 1_000 })
      storePending(sql, 'old-pending', 2, 1_000)
      storeExchange(sql, { id: 'old-2', seq: 3, user: 'u3', assistant: 'a3', at: 2_000 })
      storeExchange(sql, { id: 'recent', seq: 4, user: 'u4', assistant: 'a4', at: 9_000 })
      // the newest event is kept whatever its age: a late event's seq is compared with it
      storeExchange(sql, { id: 'newest-but-old', seq: 5, user: 'u5', assistant: 'a5', at: 1_500 })
      storeEffect(sql, 'old-1', 1_000, true)
      storeEffect(sql, 'old-unsent', 1_000, false)
      storeEffect(sql, 'recent', 9_000, true)
      const db = drizzle(state.storage, { schema })

      expect(nextPruneAt(db, 100)).toBe(1_100)
      expect(pruneRecord(db, 5_000)).toEqual({ events: 2, turns: 4, effects: 1, more: false })

      expect(ids(sql, 'events')).toEqual(['old-pending', 'recent', 'newest-but-old'])
      expect(turnContents(sql)).toEqual(['u4', 'a4', 'u5', 'a5'])
      expect(ids(sql, 'effects')).toEqual(['old-unsent:0', 'recent:0'])
      // next due: the oldest handled event left that is not the newest, or the oldest sent command
      expect(nextPruneAt(db, 100)).toBe(9_100)
      expect(pruneRecord(db, 5_000)).toEqual({ events: 0, turns: 0, effects: 0, more: false })
    })
  })

  it(`deletes at most ${PRUNE_BATCH} events per pruning and says more are due`, async () => {
    await runInDurableObject(conversationFor(env, crypto.randomUUID()), async (_instance, state) => {
      const { sql } = state.storage
      for (let seq = 1; seq <= PRUNE_BATCH + 11; seq++) storeExchange(sql, { id: `e${seq}`, seq, user: 'u', assistant: 'a', at: seq })
      const db = drizzle(state.storage, { schema })

      expect(pruneRecord(db, 1_000_000)).toEqual({ events: PRUNE_BATCH, turns: 2 * PRUNE_BATCH, effects: 0, more: true })
      expect(pruneRecord(db, 1_000_000)).toEqual({ events: 10, turns: 20, effects: 0, more: false })
      expect(ids(sql, 'events')).toEqual([`e${PRUNE_BATCH + 11}`])
    })
  })

  it("prunes in the object's pass and moves its alarm to when the next row falls due; without a retention it keeps all", async () => {
    await runInDurableObject(conversationFor(env, crypto.randomUUID()), async (instance, state) => {
      const { sql } = state.storage
      const now = Date.now()
      storeExchange(sql, { id: 'two-days-old', seq: 1, user: 'u1', assistant: 'a1', at: now - 2 * DAY_MS })
      storeExchange(sql, { id: 'an-hour-old', seq: 2, user: 'u2', assistant: 'a2', at: now - 3_600_000 })
      storeExchange(sql, { id: 'newest', seq: 3, user: 'u3', assistant: 'a3', at: now })

      // the test Worker sets no retention: the pass leaves the record and no alarm
      await (instance as Conversation).alarm()
      expect(ids(sql, 'events')).toEqual(['two-days-old', 'an-hour-old', 'newest'])
      expect(await state.storage.getAlarm()).toBeNull()

      // the same object's storage under a Worker with CONVERSATION_RETENTION_DAYS=1
      const kept = new Conversation(state, { ...env, CONVERSATION_RETENTION_DAYS: '1' })
      await kept.alarm()
      expect(ids(sql, 'events')).toEqual(['an-hour-old', 'newest'])
      expect(turnContents(sql)).toEqual(['u2', 'a2', 'u3', 'a3'])
      expect(await state.storage.getAlarm()).toBe(now - 3_600_000 + DAY_MS)
    })
  })

  it("sets the object's alarm for whichever comes first, a flow's timer or the next pruning", async () => {
    await runInDurableObject(conversationFor(env, crypto.randomUUID()), async (_instance, state) => {
      const { sql } = state.storage
      const now = Date.now()
      storeExchange(sql, { id: 'an-hour-old', seq: 1, user: 'u1', assistant: 'a1', at: now - 3_600_000 })
      storeExchange(sql, { id: 'newest', seq: 2, user: 'u2', assistant: 'a2', at: now })
      const conversation = new Conversation(state, { ...env, CONVERSATION_RETENTION_DAYS: '1' })
      const timerAt = (at: number) =>
        sql.exec(
          'INSERT OR REPLACE INTO session (id, data) VALUES (1, ?)',
          JSON.stringify({ ...newSession(), timer: { flow: 'no-such-flow', at } }),
        )

      timerAt(now + 60_000)
      await conversation.alarm()
      expect(await state.storage.getAlarm()).toBe(now + 60_000)

      timerAt(now + 2 * DAY_MS)
      await conversation.alarm()
      expect(await state.storage.getAlarm()).toBe(now - 3_600_000 + DAY_MS)
      expect(ids(sql, 'events')).toEqual(['an-hour-old', 'newest'])

      // a due timer (of a flow that no longer claims it: handled with nothing to send) is handled
      // first, then the alarm goes to the next pruning
      sql.exec('INSERT INTO conversation (connection_id) VALUES (?)', crypto.randomUUID())
      await state.storage.deleteAlarm()
      timerAt(now - 1_000)
      await conversation.alarm()
      expect(sql.exec<{ data: string }>('SELECT data FROM session').one().data).not.toContain('timer')
      expect(await state.storage.getAlarm()).toBe(now - 3_600_000 + DAY_MS)
    })
  })
})
