/**
 * Memory backend `kvstore` (`conversation/memory.ts`, `StoredWindow`) in a real Conversation
 * object's SQLite storage: the window it reads, and that it reads it through the `events_seq`
 * index, so a turn costs the same whatever the length of the conversation record.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { drizzle } from 'drizzle-orm/durable-sqlite'
import { describe, expect, it } from 'vitest'
import { conversationFor } from '../src/bindings.ts'
import { StoredWindow } from '../src/conversation/memory.ts'
import { schema } from '../src/conversation/schema.ts'
import { storeExchange } from './support/record.ts'

/** Stores a handled exchange of `seq` with the messages `u<seq>` and `a<seq>`. */
const store = (storage: DurableObjectStorage, seq: number) =>
  storeExchange(storage.sql, { id: `e${seq}`, seq, user: `u${seq}`, assistant: `a${seq}`, at: 1 })

describe('memory backend `kvstore` (the window read from the conversation record)', () => {
  it('gives the last messages of events with a lower seq, in seq order, a late event in its place', async () => {
    await runInDurableObject(conversationFor(env, crypto.randomUUID()), async (_instance, state) => {
      for (const seq of [1, 3, 2]) store(state.storage, seq)
      const window = new StoredWindow(drizzle(state.storage, { schema }))

      expect(window.before(3, 10).map((turn) => turn.content)).toEqual(['u1', 'a1', 'u2', 'a2'])
      expect(window.before(4, 3).map((turn) => turn.content)).toEqual(['a2', 'u3', 'a3'])
      expect(window.before(2, 0)).toEqual([])
    })
  })

  it('reads the window through the events_seq index, never scanning the record', async () => {
    await runInDurableObject(conversationFor(env, crypto.randomUUID()), async (_instance, state) => {
      for (let seq = 1; seq <= 200; seq++) store(state.storage, seq)
      const queries: { sql: string; params: unknown[] }[] = []
      const db = drizzle(state.storage, { schema, logger: { logQuery: (sql, params) => queries.push({ sql, params }) } })

      expect(new StoredWindow(db).before(150, 4).map((turn) => turn.content)).toEqual(['u148', 'a148', 'u149', 'a149'])

      expect(queries).toHaveLength(1)
      const { sql, params } = queries[0]!
      const plan = state.storage.sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...(params as SqlStorageValue[]))
        .toArray()
        .map((row) => row.detail)
      expect(plan.some((step) => /SEARCH events USING (COVERING )?INDEX events_seq \(seq<\?\)/.test(step))).toBe(true)
      expect(plan.filter((step) => step.startsWith('SCAN'))).toEqual([])
    })
  })
})
