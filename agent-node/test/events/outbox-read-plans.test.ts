/**
 * The outbox's reads that a controller makes routinely go through an index, in order, whatever
 * the size of the outbox: SQLite's `EXPLAIN QUERY PLAN` of the statements the store really runs
 * (captured from its connection) shows neither a scan of the whole table nor a sort. `lag`
 * (every `/readyz` and `/metrics`) and the lanes with work (start-up, PostgreSQL's cluster
 * round) read the events above each subscriber's floor by position, never every lane; a redaction reads the event it redacts, not every message of the chat.
 */
import { describe, expect, it } from 'vitest'
import type { SqliteDatabase } from '../../src/database/index.ts'
import { OutboxStore } from '../../src/events/outbox/store.ts'
import { dedupeKeyOf } from '../../src/events/publisher.ts'
import { queryPlans, rowsRead } from '../support/query-plans.ts'
import { useTempDatabases } from '../support/temp-databases.ts'

describe('outbox reads on SQLite', () => {
  const databases = useTempDatabases('outbox-plans', 'sqlite')

  /** The plan of every statement `read` makes the store run. */
  async function plansOf(read: (store: OutboxStore) => Promise<unknown>): Promise<string[][]> {
    const database = (await databases.open()) as SqliteDatabase
    const store = await OutboxStore.open(database)
    return queryPlans(database, () => read(store))
  }

  it.each([
    ['a connection-filtered event stream', (store: OutboxStore) => store.eventsAfterPosition(0, { connectionId: 'c1' }, 100)],
    ['the dead letters, newest first', (store: OutboxStore) => store.listDeadLetters({ limit: 50 })],
    ["a subscriber's dead letters", (store: OutboxStore) => store.listDeadLetters({ subscriber: 'webhook', limit: 50 })],
    ['the dead letters of a status', (store: OutboxStore) => store.listDeadLetters({ status: 'dead', limit: 50 })],
    ["a connection's dead letters", (store: OutboxStore) => store.listDeadLetters({ connectionId: 'c1', before: 10, limit: 50 })],
    [
      'a page of dead letters after a cursor',
      (store: OutboxStore) => store.listDeadLetters({ after: { createdAt: 10, id: 'x' }, limit: 51 }),
    ],
    [
      "a page of a subscriber's dead letters after a cursor",
      (store: OutboxStore) => store.listDeadLetters({ subscriber: 'webhook', after: { createdAt: 10, id: 'x' }, limit: 51 }),
    ],
  ])('%s: read through an index, in order', async (_name, read) => {
    const [plan] = await plansOf(read)
    expect(plan).toBeDefined()
    expect(plan!.some((step) => /USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/.test(step))).toBe(true)
    expect(plan!.filter((step) => /TEMP B-TREE|^SCAN \w+$/.test(step))).toEqual([])
  })

  it.each([
    ['the lag (every /readyz and /metrics)', (store: OutboxStore) => store.lag()],
    ['the lanes with work (start-up, and every cluster round on PostgreSQL)', (store: OutboxStore) => store.connectionsWithWork('hooks')],
  ])("%s: the events above each subscriber's floor, by position, not every lane", async (_name, read) => {
    const plans = await plansOf(async (store) => {
      await store.addSubscriber('hooks')
      return read(store)
    })
    // the events above the floor, by position (read at most LAG_SCAN_EVENTS of them); never a scan of a table
    expect(plans.flat().some((step) => /^SEARCH event_outbox USING .*INDEX .*\(position>\?\)/.test(step))).toBe(true)
    expect(plans.flat().filter((step) => /^SCAN (c|event_cursors|event_sequences|event_outbox)\b/.test(step))).toEqual([])
  })

  it('a redaction: the one event of the message, by its dedupe key, not every message of the chat', async () => {
    const database = (await databases.open()) as SqliteDatabase
    const store = await OutboxStore.open(database)
    const received = (n: number) => {
      const event = {
        type: 'message-received' as const,
        message: { type: 'text' as const, id: `m${n}`, connectionId: 'c1', timestamp: n, threadId: null, content: `text ${n}` },
      }
      return { id: crypto.randomUUID(), connectionId: 'c1', event, dedupeKey: dedupeKeyOf('c1', event) }
    }
    await store.append(Array.from({ length: 50 }, (_, n) => received(n)))
    const reads = await rowsRead(database, () => store.redactReceivedMessage('c1', 'm7', '[redacted]'))
    expect(reads.map((rows) => rows.length)).toEqual([1])
    const [plan] = await queryPlans(database, () => store.redactReceivedMessage('c1', 'm7', '[redacted]'))
    expect(plan!.filter((step) => /TEMP B-TREE|^SCAN \w+$/.test(step))).toEqual([])
  })
})
