import {
  AgentContext,
  CredoError,
  DependencyManager,
  DidDocumentRole,
  DidRecord,
  GenericRecord,
  JsonTransformer,
  RecordDuplicateError,
  RecordNotFoundError,
  StorageVersionRecord,
  type Query,
  type TagsBase,
} from '@credo-ts/core'
import { DidCommConnectionRecord, DidCommDidExchangeRole, DidCommDidExchangeState } from '@credo-ts/didcomm'
import { sql, type SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { execute, selectRows } from '../../src/database/dialect.ts'
import type { Database } from '../../src/database/index.ts'
import { DrizzleStorageService } from '../../src/wallet/storage/index.ts'
import { LOCKED_UPDATE_ATTEMPTS, RECORDS_PER_TURN, RecordChangedError } from '../../src/wallet/storage/DrizzleStorageService.ts'
import { selectRecords } from '../../src/wallet/storage/query.ts'
import { openRecordStore } from '../support/record-store.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

function contextFor(contextCorrelationId: string) {
  return new AgentContext({ dependencyManager: new DependencyManager(), contextCorrelationId })
}

const agentContext = contextFor('ctx-a')

function generic(id: string, tags: TagsBase, createdAt = new Date('2025-01-01T00:00:00Z')) {
  return new GenericRecord({ id, tags, createdAt, content: { id } })
}

/** The query plan of `select`, one line per plan node, in the dialect's own words. */
async function planOf(database: Database, select: SQL): Promise<string[]> {
  if (database.dialect === 'sqlite') {
    const plan = await selectRows<{ detail: string }>(database, sql`EXPLAIN QUERY PLAN ${select}`)
    return plan.map((row) => row.detail)
  }
  // the tables are tiny: without this PostgreSQL rightly prefers reading them whole
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL enable_seqscan = off`)
    const plan = await tx.execute<{ 'QUERY PLAN': string }>(sql`EXPLAIN ${select}`)
    return plan.rows.map((row) => row['QUERY PLAN'].trim())
  })
}

/**
 * PostgreSQL: every scan of the two tables is an index scan, of the tag lookup index or of an
 * index of the records led by their context and type (the key, or `credo_records_updated`, which
 * serves a scan of a type's records as well).
 */
function expectIndexScansOnly(plan: string[]) {
  const scans = plan.filter((line) => / on credo_record(s|_tags)\b/.test(line))
  expect(scans.length).toBeGreaterThan(0)
  for (const line of scans) {
    expect(line).toMatch(
      /^(-> +)?Index (Only )?Scan using (credo_record_tags_lookup on credo_record_tags|credo_records_(pkey|updated) on credo_records)\b/,
    )
  }
}

describe.each(dialects)('on %s', (dialect) => {
  const databases = useTempDatabases('parley-storage-', dialect)
  let database: Database
  let storage: DrizzleStorageService

  beforeEach(async () => {
    database = await databases.open()
    storage = await openRecordStore(database)
  })

  async function tagRowCount() {
    const [row] = await selectRows<{ n: number | string }>(database, sql`SELECT COUNT(*) AS n FROM credo_record_tags`)
    return Number(row?.n)
  }

  describe('records', () => {
    it('seals record values at rest, and seals at open the values an older version stored in clear', async () => {
      const record = new GenericRecord({ content: { secret: 'a private value 8f3e1c' } })
      await storage.save(agentContext, record)
      const rawValue = async () =>
        (await selectRows<{ value: string }>(database, sql`SELECT value FROM credo_records WHERE id = ${record.id}`))[0]!.value
      expect(await rawValue()).toMatch(/^sealed:v1:/)
      expect(await rawValue()).not.toContain('8f3e1c')

      // as an older version stored it: the record's JSON in clear
      const clear = JSON.stringify(JsonTransformer.toJSON(record))
      await execute(database, sql`UPDATE credo_records SET value = ${clear} WHERE id = ${record.id}`)
      expect((await storage.getById(agentContext, GenericRecord, record.id)).content).toEqual(record.content)
      const reopened = await openRecordStore(await databases.open())
      expect(await rawValue()).toMatch(/^sealed:v1:/)
      expect((await reopened.getById(agentContext, GenericRecord, record.id)).content).toEqual(record.content)
    })

    it('turns a large result into records a turn of the event loop at a time, in order', async () => {
      const count = 2 * RECORDS_PER_TURN + 50
      const records = Array.from({ length: count }, (_, i) =>
        generic(`bulk-${String(i).padStart(4, '0')}`, { kind: 'bulk' }, new Date(Date.UTC(2025, 0, 1, 0, 0, i))),
      )
      for (const record of records) await storage.save(agentContext, record)
      const reads = {
        getAll: () => storage.getAll(agentContext, GenericRecord),
        findByQuery: () => storage.findByQuery(agentContext, GenericRecord, { kind: 'bulk' }),
      }
      for (const [name, read] of Object.entries(reads)) {
        // how many records were made by each check phase of the event loop while the read runs
        const fromJSON = vi.spyOn(JsonTransformer, 'fromJSON')
        const madeAtTurn: number[] = []
        let reading = true
        const tick = () => {
          madeAtTurn.push(fromJSON.mock.calls.length)
          if (reading) setImmediate(tick)
        }
        setImmediate(tick)
        const loaded = await read()
        reading = false
        madeAtTurn.push(fromJSON.mock.calls.length)
        fromJSON.mockRestore()
        const perTurn = madeAtTurn.slice(1).map((made, i) => made - madeAtTurn[i]!)
        expect(madeAtTurn.at(-1), name).toBe(count)
        expect(Math.max(...perTurn), name).toBe(RECORDS_PER_TURN)
        expect(
          loaded.map((record) => record.id),
          name,
        ).toEqual(records.map((record) => record.id))
      }
    })

    it('saves and loads a DidRecord as a class instance with dates, metadata and tags', async () => {
      const record = new DidRecord({
        did: 'did:peer:1zQmExample',
        role: DidDocumentRole.Created,
        tags: { recipientKeyFingerprints: ['z6MkA', 'z6MkB'], alternativeDids: ['did:peer:4zQm'] },
      })
      record.metadata.set('custom', { nested: { n: 1 } })
      await storage.save(agentContext, record)

      const loaded = await storage.getById(agentContext, DidRecord, record.id)
      expect(loaded).toBeInstanceOf(DidRecord)
      expect(loaded.createdAt).toBeInstanceOf(Date)
      expect(loaded.createdAt.getTime()).toBe(record.createdAt.getTime())
      expect(loaded.updatedAt).toBeInstanceOf(Date)
      expect(loaded.updatedAt?.getTime()).toBe(record.updatedAt?.getTime())
      expect(loaded.metadata.get('custom')).toEqual({ nested: { n: 1 } })
      expect(loaded.getTags()).toEqual(record.getTags())
      expect([loaded.id, loaded.did, loaded.role]).toEqual([record.id, record.did, record.role])
    })

    it('round-trips a DidCommConnectionRecord with its array tags', async () => {
      const record = new DidCommConnectionRecord({
        state: DidCommDidExchangeState.Completed,
        role: DidCommDidExchangeRole.Responder,
        did: 'did:peer:1zQmOurs',
        theirDid: 'did:peer:1zQmTheirs',
        threadId: 'thread-1',
        connectionTypes: ['chat'],
      })
      await storage.save(agentContext, record)

      const loaded = await storage.getById(agentContext, DidCommConnectionRecord, record.id)
      expect(loaded).toBeInstanceOf(DidCommConnectionRecord)
      expect(loaded.isReady).toBe(true)
      expect(loaded.getTags()).toEqual(record.getTags())
      const found = await storage.findByQuery(agentContext, DidCommConnectionRecord, {
        $or: [
          { did: 'did:peer:1zQmOurs', theirDid: 'did:peer:1zQmTheirs' },
          { did: 'did:peer:1zQmOurs', previousTheirDids: ['did:peer:1zQmTheirs'] },
          { previousDids: ['did:peer:1zQmOurs'], theirDid: 'did:peer:1zQmTheirs' },
        ],
      })
      expect(found.map((r) => r.id)).toEqual([record.id])
    })

    it('sets createdAt when missing and updatedAt on save', async () => {
      const record = new StorageVersionRecord({ storageVersion: '0.5' })
      record.createdAt = undefined as unknown as Date
      await storage.save(agentContext, record)
      expect(record.createdAt).toBeInstanceOf(Date)
      expect(record.updatedAt).toBeInstanceOf(Date)
      const loaded = await storage.getById(agentContext, StorageVersionRecord, record.id)
      expect(loaded.storageVersion).toBe('0.5')
      expect(loaded.createdAt.getTime()).toBe(record.createdAt.getTime())
    })

    it('throws RecordDuplicateError when the id exists for the type in the context', async () => {
      await storage.save(agentContext, generic('r1', { a: 'x' }))
      await expect(storage.save(agentContext, generic('r1', { a: 'y' }))).rejects.toBeInstanceOf(RecordDuplicateError)
      expect(await tagRowCount()).toBe(1)
      // the same id is free for another type and in another context
      await storage.save(agentContext, new StorageVersionRecord({ storageVersion: '0.5' }))
      await storage.save(agentContext, Object.assign(new StorageVersionRecord({ storageVersion: '0.5' }), { id: 'r1' }))
      await storage.save(contextFor('ctx-b'), generic('r1', { a: 'z' }))
    })

    it('update replaces the value and every tag, and sets updatedAt', async () => {
      const record = generic('r1', { state: 'offer-sent', roles: ['a', 'b'], flagged: true })
      await storage.save(agentContext, record)
      const savedUpdatedAt = record.updatedAt

      record.content = { changed: true }
      record.replaceTags({ state: 'done', roles: ['c'] })
      await storage.update(agentContext, record)
      expect(record.updatedAt).toBeInstanceOf(Date)
      expect(record.updatedAt).not.toBe(savedUpdatedAt)

      const loaded = await storage.getById(agentContext, GenericRecord, 'r1')
      expect(loaded.content).toEqual({ changed: true })
      expect(loaded.getTags()).toEqual({ state: 'done', roles: ['c'] })
      expect(loaded.updatedAt?.getTime()).toBe(record.updatedAt?.getTime())
      expect(await storage.findByQuery(agentContext, GenericRecord, { state: 'offer-sent' })).toEqual([])
      expect(await storage.findByQuery(agentContext, GenericRecord, { roles: ['a'] })).toEqual([])
      expect(await storage.findByQuery(agentContext, GenericRecord, { flagged: true })).toEqual([])
      expect((await storage.findByQuery(agentContext, GenericRecord, { roles: ['c'] })).map((r) => r.id)).toEqual(['r1'])
      expect(await tagRowCount()).toBe(2)
    })

    it('update throws RecordNotFoundError for a missing record, with or without tags, and writes nothing', async () => {
      await expect(storage.update(agentContext, generic('missing', { a: 'x', list: ['1', '2'] }))).rejects.toBeInstanceOf(
        RecordNotFoundError,
      )
      await expect(storage.update(agentContext, generic('missing', {}))).rejects.toBeInstanceOf(RecordNotFoundError)
      await storage.save(contextFor('ctx-b'), generic('elsewhere', {}))
      await expect(storage.update(agentContext, generic('elsewhere', {}))).rejects.toBeInstanceOf(RecordNotFoundError)
      expect(await tagRowCount()).toBe(0)
      expect(await storage.getAll(agentContext, GenericRecord)).toEqual([])
    })

    it('delete and deleteById remove the record and its tag rows, and throw RecordNotFoundError when missing', async () => {
      const first = generic('r1', { a: 'x', list: ['1'] })
      await storage.save(agentContext, first)
      await storage.save(agentContext, generic('r2', { a: 'x' }))

      await storage.delete(agentContext, first)
      await storage.deleteById(agentContext, GenericRecord, 'r2')
      expect(await tagRowCount()).toBe(0)
      await expect(storage.getById(agentContext, GenericRecord, 'r1')).rejects.toBeInstanceOf(RecordNotFoundError)
      await expect(storage.delete(agentContext, first)).rejects.toBeInstanceOf(RecordNotFoundError)
      await expect(storage.deleteById(agentContext, GenericRecord, 'r2')).rejects.toBeInstanceOf(RecordNotFoundError)
      await expect(storage.deleteById(agentContext, DidRecord, 'nope')).rejects.toBeInstanceOf(RecordNotFoundError)
    })

    it('getById looks only at the given type', async () => {
      await storage.save(agentContext, generic('r1', {}))
      await expect(storage.getById(agentContext, DidRecord, 'r1')).rejects.toBeInstanceOf(RecordNotFoundError)
    })

    it('takes concurrent writes and reads from one process', async () => {
      // SQLite: a transaction held across awaits would fail the others; PostgreSQL: a pool of connections
      const records = Array.from({ length: 100 }, (_, index) => generic(`r${index}`, { k: `v${index % 3}` }))
      await Promise.all(records.map((record) => storage.save(agentContext, record)))
      await Promise.all(
        records.flatMap((record) => [storage.update(agentContext, record), storage.findByQuery(agentContext, GenericRecord, { k: 'v1' })]),
      )
      await Promise.all(records.slice(0, 40).map((record) => storage.delete(agentContext, record)))
      expect((await storage.getAll(agentContext, GenericRecord)).length).toBe(60)
      expect(await tagRowCount()).toBe(60)
    })

    it('rejects tag values that are not Credo tag values', async () => {
      const record = generic('r1', { count: 3 as unknown as string })
      await expect(storage.save(agentContext, record)).rejects.toBeInstanceOf(CredoError)
      await expect(storage.getById(agentContext, GenericRecord, 'r1')).rejects.toBeInstanceOf(RecordNotFoundError)
    })
  })

  describe('contexts', () => {
    it('keeps each agent context apart', async () => {
      const other = contextFor('ctx-b')
      await storage.save(agentContext, generic('same-id', { owner: 'a' }))
      await storage.save(other, generic('same-id', { owner: 'b' }))
      await storage.save(other, generic('only-b', { owner: 'b' }))

      expect((await storage.getById(agentContext, GenericRecord, 'same-id')).getTags()).toEqual({ owner: 'a' })
      expect((await storage.getAll(agentContext, GenericRecord)).map((r) => r.id)).toEqual(['same-id'])
      expect(await storage.findByQuery(agentContext, GenericRecord, { owner: 'b' })).toEqual([])
      expect((await storage.findByQuery(other, GenericRecord, { owner: 'b' })).map((r) => r.id).sort()).toEqual(['only-b', 'same-id'])

      await storage.deleteById(other, GenericRecord, 'same-id')
      expect((await storage.getById(agentContext, GenericRecord, 'same-id')).getTags()).toEqual({ owner: 'a' })
    })
  })

  describe('tag queries', () => {
    // a..e in creation order
    const fixtures: Array<[string, TagsBase]> = [
      ['a', { state: 'done', role: 'issuer', isReady: true, roles: ['admin', 'user'] }],
      ['b', { state: 'done', role: 'holder', isReady: false, roles: ['user'] }],
      ['c', { state: 'pending', role: 'issuer', flag: '1', roles: [] }],
      ['d', { state: 'pending', threadId: 't-1', isReady: 'true', flag: null }],
      ['e', { state: 'abandoned', role: 'user', threadId: 't-2' }],
    ]

    beforeEach(async () => {
      for (const [index, [id, tags]] of fixtures.entries()) {
        await storage.save(agentContext, generic(id, tags, new Date(Date.UTC(2025, 0, 1, 0, 0, index))))
      }
      // same tags under another type and another context must never match
      for (const [id, tags] of fixtures) {
        await storage.save(contextFor('ctx-b'), generic(id, tags))
        await storage.save(agentContext, Object.assign(new StorageVersionRecord({ storageVersion: '0.5' }), { id, _tags: tags }))
      }
    })

    async function ids(query: Query<GenericRecord>, options?: { limit?: number; offset?: number }) {
      return (await storage.findByQuery(agentContext, GenericRecord, query, options)).map((r) => r.id)
    }

    it('matches string equality, and several keys together', async () => {
      expect(await ids({ state: 'done' })).toEqual(['a', 'b'])
      expect(await ids({ state: 'pending', role: 'issuer' })).toEqual(['c'])
      expect(await ids({ state: 'nothing' })).toEqual([])
    })

    it('matches booleans as booleans: true is not the string "true", the string "1" is not true', async () => {
      expect(await ids({ isReady: true })).toEqual(['a'])
      expect(await ids({ isReady: false })).toEqual(['b'])
      expect(await ids({ isReady: 'true' })).toEqual(['d'])
      expect(await ids({ flag: '1' })).toEqual(['c'])
      expect(await ids({ flag: true })).toEqual([])
    })

    it('matches arrays when every queried element is in the record array', async () => {
      expect(await ids({ roles: ['user'] })).toEqual(['a', 'b'])
      expect(await ids({ roles: ['admin', 'user'] })).toEqual(['a'])
      expect(await ids({ roles: ['user', 'guest'] })).toEqual([])
      // an array tag is not a string tag, and the other way round
      expect(await ids({ roles: 'user' })).toEqual([])
      expect(await ids({ role: ['user'] })).toEqual([])
      // an empty array puts no condition (as Askar, which stores no tag for it)
      expect(await ids({ roles: [] })).toEqual(['a', 'b', 'c', 'd', 'e'])
    })

    it('matches null as "no such tag" and ignores undefined', async () => {
      expect(await ids({ threadId: null })).toEqual(['a', 'b', 'c'])
      expect(await ids({ flag: null })).toEqual(['a', 'b', 'd', 'e'])
      expect(await ids({ roles: null })).toEqual(['c', 'd', 'e'])
      expect(await ids({ threadId: undefined, state: 'done' })).toEqual(['a', 'b'])
    })

    it('supports $and, $or and $not, combined with the keys beside them', async () => {
      expect(await ids({ $and: [{ state: 'done' }, { roles: ['admin'] }] })).toEqual(['a'])
      expect(await ids({ $or: [{ role: 'holder' }, { threadId: 't-2' }] })).toEqual(['b', 'e'])
      expect(await ids({ state: 'pending', $or: [{ role: 'issuer' }, { threadId: 't-2' }] })).toEqual(['c'])
      expect(await ids({ $not: { state: 'done' } })).toEqual(['c', 'd', 'e'])
      // $not of several keys: not (both)
      expect(await ids({ $not: { state: 'done', role: 'issuer' } })).toEqual(['b', 'c', 'd', 'e'])
      // a record without the tag is "not equal" to it (Askar: NOT IN)
      expect(await ids({ $not: { role: 'issuer' } })).toEqual(['b', 'd', 'e'])
      expect(await ids({ $not: { threadId: null } })).toEqual(['d', 'e'])
    })

    it('supports arbitrary nesting', async () => {
      const query: Query<GenericRecord> = {
        $or: [
          { role: 'holder' },
          { $and: [{ state: 'pending' }, { $not: { threadId: 't-1' } }] },
          { $not: { $or: [{ state: 'done' }, { state: 'pending' }, { role: 'user' }] } },
        ],
      }
      expect(await ids(query)).toEqual(['b', 'c'])
      expect(await ids({ $not: query })).toEqual(['a', 'd', 'e'])
      expect(await ids({ $and: [{ $or: [{ roles: ['user'] }, { flag: '1' }] }, { $not: { isReady: false } }] })).toEqual(['a', 'c'])
    })

    it('answers an $or of any length: 600 out-of-band ids, and 600 branches of two tags each', async () => {
      // the connections of the invitations naming a DID are an $or of their out-of-band ids
      // (didcomm/connections.ts); SQLite refuses a compound SELECT of more than 500 terms
      const count = 600
      const oob = (i: number) => `oob-${String(i).padStart(4, '0')}`
      for (let i = 0; i < count; i++) {
        await storage.save(agentContext, generic(oob(i), { outOfBandId: oob(i), state: 'done' }, new Date(Date.UTC(2025, 0, 2, 0, 0, i))))
      }
      const all = Array.from({ length: count }, (_, i) => oob(i))
      const byId = { $or: [...all.map((outOfBandId) => ({ outOfBandId })), { outOfBandId: 'oob-none' }] }
      expect(await ids(byId)).toEqual(all)
      expect(await ids({ state: 'done', ...byId }, { limit: 10, offset: 595 })).toEqual(all.slice(595))
      expect((await storage.findNewestFirst(agentContext, GenericRecord, { $and: [byId] }, { limit: 2 })).map((r) => r.id)).toEqual([
        oob(599),
        oob(598),
      ])
      // branches of several tags, and of other tags, beside the equalities
      const mixed = { $or: [...all.map((outOfBandId) => ({ outOfBandId, state: 'done' })), { role: 'holder' }, { isReady: 'true' }] }
      expect(await ids(mixed)).toEqual(['b', 'd', ...all])
      // an $or of equalities on one tag is one lookup of its values, not a UNION of a SELECT each
      const { sql: text } = (dialect === 'sqlite' ? new SQLiteAsyncDialect() : new PgDialect()).sqlToQuery(
        selectRecords({ contextId: 'ctx-a', type: 'GenericRecord' }, byId),
      )
      expect(text).not.toContain('UNION')
    }, 60_000)

    it('keeps the kinds of the values of one tag apart in an $or', async () => {
      expect(await ids({ $or: [{ isReady: true }, { isReady: 'true' }] })).toEqual(['a', 'd'])
      expect(await ids({ $or: [{ isReady: true }, { isReady: false }] })).toEqual(['a', 'b'])
      expect(await ids({ $or: [{ roles: ['admin'] }, { role: 'user' }, { role: 'holder' }, { roles: 'admin' }] })).toEqual(['a', 'b', 'e'])
      expect(await ids({ $or: [{ flag: '1' }, { flag: true }, { threadId: 't-1' }, { threadId: 't-2' }] })).toEqual(['c', 'd', 'e'])
    })

    it('treats empty queries as Askar does: {}, $and: [] and $or: [] match all, $not: {} matches none', async () => {
      const all = ['a', 'b', 'c', 'd', 'e']
      expect(await ids({})).toEqual(all)
      expect(await ids({ $and: [] })).toEqual(all)
      expect(await ids({ $or: [] })).toEqual(all)
      expect(await ids({ $or: undefined, $and: undefined, $not: undefined })).toEqual(all)
      expect(await ids({ $not: {} })).toEqual([])
    })

    it('pages with limit and offset in creation order', async () => {
      expect(await ids({}, { limit: 2 })).toEqual(['a', 'b'])
      expect(await ids({}, { limit: 2, offset: 2 })).toEqual(['c', 'd'])
      expect(await ids({}, { offset: 3 })).toEqual(['d', 'e'])
      expect(await ids({ state: 'pending' }, { limit: 1, offset: 1 })).toEqual(['d'])
      expect((await storage.getAll(agentContext, GenericRecord)).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e'])
    })

    it('pages newest first from a position: each page after the last one, ties in creation time ordered by id', async () => {
      // f and g share e's creation time: the id tells them apart
      for (const id of ['g', 'f'])
        await storage.save(agentContext, generic(id, { state: 'pending' }, new Date(Date.UTC(2025, 0, 1, 0, 0, 4))))
      const page = async (query: Query<GenericRecord>, limit: number, after?: GenericRecord) =>
        storage.findNewestFirst(agentContext, GenericRecord, query, {
          limit,
          after: after && { createdAt: after.createdAt.getTime(), id: after.id },
        })
      const pages: string[][] = []
      let last: GenericRecord | undefined
      for (;;) {
        const records = await page({}, 3, last)
        if (records.length === 0) break
        pages.push(records.map((r) => r.id))
        last = records.at(-1)
      }
      expect(pages).toEqual([['g', 'f', 'e'], ['d', 'c', 'b'], ['a']])
      expect((await page({ state: 'pending' }, 2)).map((r) => r.id)).toEqual(['g', 'f'])
      const [, f] = await page({ state: 'pending' }, 2)
      expect((await page({ state: 'pending' }, 10, f)).map((r) => r.id)).toEqual(['d', 'c'])
      expect((await page({}, -1)).map((r) => r.id)).toEqual(['g', 'f', 'e', 'd', 'c', 'b', 'a'])
    })

    it('refuses cursor pagination, which it does not support', async () => {
      expect(storage.supportsCursorPagination).toBe(false)
      await expect(storage.findByQuery(agentContext, GenericRecord, {}, { cursor: { after: 'x' } })).rejects.toBeInstanceOf(CredoError)
    })

    it('binds values as parameters', async () => {
      const hostile = "x' OR '1'='1"
      expect(await ids({ state: hostile })).toEqual([])
      const select = selectRecords({ contextId: 'ctx-a', type: 'GenericRecord' }, { state: hostile })
      const statement = (dialect === 'sqlite' ? new SQLiteAsyncDialect() : new PgDialect()).sqlToQuery(select)
      expect(statement.sql).not.toContain(hostile)
      expect(statement.params).toContain(hostile)
    })
  })

  describe('concurrent writers', () => {
    it('two connections save, update and delete at once without losing a record or a tag row', async () => {
      const other = await openRecordStore(await databases.open())
      const ours = Array.from({ length: 30 }, (_, index) => generic(`a${index}`, { side: 'a', list: ['x', `${index}`] }))
      const theirs = Array.from({ length: 30 }, (_, index) => generic(`b${index}`, { side: 'b', list: ['x', `${index}`] }))
      await Promise.all([
        ...ours.map((record) => storage.save(agentContext, record)),
        ...theirs.map((record) => other.save(agentContext, record)),
      ])
      await Promise.all([
        ...theirs.map((record) => storage.update(agentContext, record)),
        ...ours.map((record) => other.update(agentContext, record)),
        ...ours.slice(0, 10).map((_record) => storage.findByQuery(agentContext, GenericRecord, { list: ['x'] })),
      ])
      await Promise.all(ours.slice(0, 10).map((record) => other.delete(agentContext, record)))

      expect((await storage.findByQuery(agentContext, GenericRecord, { list: ['x'] })).length).toBe(50)
      expect((await other.findByQuery(agentContext, GenericRecord, { side: 'a' })).length).toBe(20)
      expect(await tagRowCount()).toBe(50 * 3)
    })

    it('of the same new record, exactly one wins and the other gets RecordDuplicateError', async () => {
      const other = await openRecordStore(await databases.open())
      const results = await Promise.allSettled([
        storage.save(agentContext, generic('contested', { by: 'first' })),
        other.save(agentContext, generic('contested', { by: 'second' })),
      ])
      expect(results.filter((result) => result.status === 'fulfilled').length).toBe(1)
      const [failure] = results.filter((result) => result.status === 'rejected')
      expect(failure?.reason).toBeInstanceOf(RecordDuplicateError)
      expect(await tagRowCount()).toBe(1)
    })

    it('of the same record, the updates queue: the stored tags are those of one whole update', async () => {
      const other = await openRecordStore(await databases.open())
      await storage.save(agentContext, generic('shared', { version: '0' }))
      const updates = Array.from({ length: 20 }, (_, index) => {
        const record = generic('shared', { version: `${index}`, list: [`${index}`, `${index}-b`] })
        return (index % 2 === 0 ? storage : other).update(agentContext, record)
      })
      await Promise.all(updates)
      const loaded = await storage.getById(agentContext, GenericRecord, 'shared')
      const version = loaded.getTags().version as string
      expect(loaded.getTags()).toEqual({ version, list: [version, `${version}-b`] })
      expect(await tagRowCount()).toBe(3)
    })
  })

  describe('updateByIdWithLock', () => {
    /** The stored value of record `id` of `ctx-a`'s generic records, as in the table. */
    async function storedValue(id: string) {
      const [row] = await selectRows<{ value: string }>(
        database,
        sql`SELECT value FROM credo_records WHERE context_id = 'ctx-a' AND type = ${GenericRecord.type} AND id = ${id}`,
      )
      return row?.value
    }

    it('stores what the callback returns, and the record says it supports locking', async () => {
      await storage.save(agentContext, generic('r1', { state: 'offer' }))
      const updated = await storage.updateByIdWithLock(agentContext, GenericRecord, 'r1', async (record) => {
        record.content = { changed: true }
        record.setTag('state', 'done')
        return record
      })
      expect(updated.content).toEqual({ changed: true })
      const loaded = await storage.getById(agentContext, GenericRecord, 'r1')
      expect(loaded.content).toEqual({ changed: true })
      expect(loaded.getTags()).toEqual({ state: 'done' })
      expect((await storage.findByQuery(agentContext, GenericRecord, { state: 'done' })).map((r) => r.id)).toEqual(['r1'])
      expect(storage.supportsLocking()).toBe(true)
    })

    it('calls back again on the fresh record when another writer changed it after the read, keeping that write', async () => {
      const other = await openRecordStore(await databases.open())
      await storage.save(agentContext, generic('r1', { state: 'offer', list: ['a'] }))
      const seen: unknown[] = []
      await storage.updateByIdWithLock(agentContext, GenericRecord, 'r1', async (record) => {
        seen.push(record.content)
        if (seen.length === 1) {
          const theirs = await other.getById(agentContext, GenericRecord, 'r1')
          theirs.content = { by: 'other' }
          theirs.replaceTags({ state: 'theirs', list: ['b', 'c'] })
          await other.update(agentContext, theirs)
        }
        record.setTag('flag', 'ours')
        return record
      })
      expect(seen).toEqual([{ id: 'r1' }, { by: 'other' }])
      const loaded = await storage.getById(agentContext, GenericRecord, 'r1')
      expect(loaded.content).toEqual({ by: 'other' })
      expect(loaded.getTags()).toEqual({ state: 'theirs', list: ['b', 'c'], flag: 'ours' })
      expect(await tagRowCount()).toBe(4)
    })

    it('loses no update when two connections update one record at once', async () => {
      const other = await openRecordStore(await databases.open())
      const counter = new GenericRecord({ id: 'counter', content: { count: 0 } })
      await storage.save(agentContext, counter)
      const increments = async (store: DrizzleStorageService) => {
        for (let i = 0; i < 15; i++) {
          await store.updateByIdWithLock(agentContext, GenericRecord, 'counter', async (record) => {
            await new Promise((resolve) => setImmediate(resolve)) // the other connection may write meanwhile
            record.content = { count: (record.content.count as number) + 1 }
            return record
          })
        }
      }
      await Promise.all([increments(storage), increments(other)])
      expect((await storage.getById(agentContext, GenericRecord, 'counter')).content).toEqual({ count: 30 })
    })

    it('writes nothing when the callback changes nothing', async () => {
      const record = generic('r1', { state: 'offer' })
      await storage.save(agentContext, record)
      const before = await storedValue('r1')
      const returned = await storage.updateByIdWithLock(agentContext, GenericRecord, 'r1', async (loaded) => loaded)
      expect(await storedValue('r1')).toBe(before)
      expect(returned.updatedAt?.getTime()).toBe(record.updatedAt?.getTime())
    })

    it('throws RecordNotFoundError for a missing record, and RecordChangedError when every attempt lost to another writer', async () => {
      await expect(storage.updateByIdWithLock(agentContext, GenericRecord, 'missing', async (record) => record)).rejects.toBeInstanceOf(
        RecordNotFoundError,
      )
      const other = await openRecordStore(await databases.open())
      await storage.save(agentContext, generic('r1', { state: 'offer' }))
      let calls = 0
      const update = storage.updateByIdWithLock(agentContext, GenericRecord, 'r1', async (record) => {
        calls++
        const theirs = await other.getById(agentContext, GenericRecord, 'r1')
        theirs.content = { by: `other ${calls}` }
        await other.update(agentContext, theirs)
        record.setTag('state', 'ours')
        return record
      })
      await expect(update).rejects.toBeInstanceOf(RecordChangedError)
      expect(calls).toBe(LOCKED_UPDATE_ATTEMPTS)
      const loaded = await storage.getById(agentContext, GenericRecord, 'r1')
      expect(loaded.content).toEqual({ by: `other ${LOCKED_UPDATE_ATTEMPTS}` })
      expect(loaded.getTags()).toEqual({ state: 'offer' })
    })
  })

  describe('indexes', () => {
    async function plannedQuery(query: Query<GenericRecord>) {
      const select = selectRecords({ contextId: 'ctx-a', type: 'GenericRecord' }, query, { limit: 10 })
      return { details: await planOf(database, select), rows: await selectRows(database, select) }
    }

    beforeEach(async () => {
      for (let index = 0; index < 50; index++) {
        const tags = { state: `s${index % 5}`, did: `did:${index}`, roles: ['x', `y${index}`] }
        await storage.save(agentContext, generic(`r${index}`, tags))
      }
    })

    // the shapes of Credo's DidCommConnectionRepository.findByDids and DidRepository queries
    const andOrQuery: Query<GenericRecord> = {
      $and: [{ state: 's1' }, { roles: ['x'] }],
      $or: [
        { did: 'did:1', theirDid: 'did:2' },
        { did: 'did:1', previousTheirDids: ['did:2'] },
        { alternativeDids: ['did:1'] },
        { did: 'did:6' },
      ],
    }

    it('answers an $and/$or query from the tag index and fetches only matching records by key', async () => {
      const { details, rows } = await plannedQuery(andOrQuery)
      expect(rows.length).toBe(1)
      if (dialect === 'sqlite') {
        expect(details[0]).toMatch(/^SEARCH credo_records USING .*INDEX \S+ \(context_id=\? AND type=\? AND id=\?\)$/)
        const tagLookups = details.filter((detail) => detail.includes('credo_record_tags'))
        expect(tagLookups.length).toBeGreaterThan(0)
        for (const detail of tagLookups) {
          expect(detail).toMatch(
            /^SEARCH credo_record_tags USING COVERING INDEX credo_record_tags_lookup \(context_id=\? AND type=\? AND name=\? AND value=\?/,
          )
        }
      } else {
        // every read of either table goes through an index: tag conditions through the lookup
        // index (name and value in its condition), records by their primary key
        expectIndexScansOnly(details)
        expect(details).toContainEqual(expect.stringMatching(/^Index Cond: .*\(name = .*\) AND \(value = .*\)/))
        expect(details).toContainEqual(expect.stringMatching(/^Index Cond: .*\(type = .*\) AND \(id = credo_records_\d+\.id\)/))
      }
      expect(details.join('\n')).not.toMatch(/SCAN|Seq Scan/)
    })

    it('drives a query of several tags from the likeliest rare one, looking the others up per candidate', async () => {
      // `state` and `roles: ['x']` are shared by many records; `did` is nearly unique: it drives
      // (read in the index once), the other two are checked per candidate record
      const query: Query<GenericRecord> = { state: 's1', roles: ['x'], did: 'did:6' }
      const select = selectRecords({ contextId: 'ctx-a', type: 'GenericRecord' }, query)
      const { params } = new SQLiteAsyncDialect().sqlToQuery(select)
      expect(params.slice(2, 7)).toEqual(['ctx-a', 'GenericRecord', 'did', 'did:6', 'string'])
      const { details, rows } = await plannedQuery(query)
      expect(rows.map((row) => row.id)).toEqual(['r6'])
      if (dialect === 'sqlite') {
        expect(details[0]).toMatch(/^SEARCH credo_records USING .*INDEX \S+ \(context_id=\? AND type=\? AND id=\?\)$/)
        // two lists: the page's keys (a query with a limit cuts the keys before reading values) and the driving tag's
        expect(details.filter((detail) => detail.startsWith('LIST SUBQUERY'))).toHaveLength(2)
        expect(details.filter((detail) => detail.startsWith('CORRELATED SCALAR SUBQUERY'))).toHaveLength(2)
      } else {
        expectIndexScansOnly(details)
      }
      expect(details.join('\n')).not.toMatch(/SCAN|Seq Scan/)
    })

    it('answers an $or of values of one tag with one lookup of the tag index', async () => {
      // with statistics, as a database in use has them: without, PostgreSQL guesses one row a
      // table and may as well find the values through the tag rows' primary key
      if (dialect === 'postgres') await execute(database, sql`ANALYZE`)
      const { details, rows } = await plannedQuery({ $or: [{ did: 'did:1' }, { did: 'did:2' }, { did: 'did:7' }, { did: 'did:none' }] })
      expect(rows.map((row) => row.id).sort()).toEqual(['r1', 'r2', 'r7'])
      if (dialect === 'sqlite') {
        const tagLookups = details.filter((detail) => detail.includes('credo_record_tags'))
        expect(tagLookups).toHaveLength(1)
        expect(tagLookups[0]).toMatch(
          /^SEARCH credo_record_tags USING COVERING INDEX credo_record_tags_lookup \(context_id=\? AND type=\? AND name=\? AND value=\?/,
        )
      } else {
        expectIndexScansOnly(details)
        expect(details.filter((detail) => detail.includes('credo_record_tags_lookup'))).toHaveLength(1)
        expect(details).toContainEqual(expect.stringMatching(/^Index Cond: .*\(name = .*\) AND \(value = ANY /))
      }
      expect(details.join('\n')).not.toMatch(/SCAN|Seq Scan/)
    })

    it('answers $not and null from the tag index, within the records of the type', async () => {
      const { details, rows } = await plannedQuery({ $not: { state: 's1' }, threadId: null })
      expect(rows.length).toBe(10)
      if (dialect === 'sqlite') {
        expect(details[0]).toMatch(/^SEARCH credo_records USING .*INDEX \S+ \(context_id=\? AND type=\?/)
        for (const detail of details.filter((line) => line.includes('credo_record_tags'))) {
          expect(detail).toMatch(
            /^SEARCH credo_record_tags USING COVERING INDEX credo_record_tags_lookup \(context_id=\? AND type=\? AND name=\?/,
          )
        }
      } else {
        expectIndexScansOnly(details)
        expect(details).toContainEqual(expect.stringMatching(/^Index Cond: \(\(context_id = .*\) AND \(type = .*\)\)$/))
      }
      expect(details.join('\n')).not.toMatch(/SCAN|Seq Scan/)
    })
  })

  describe('schema', () => {
    it('is created once: opening again, even twice at once, keeps the data', async () => {
      await storage.save(agentContext, generic('kept', { a: 'x' }))
      const [first, second] = await Promise.all([
        databases.open().then((reopened) => openRecordStore(reopened)),
        databases.open().then((reopened) => openRecordStore(reopened)),
      ])
      expect((await first.findByQuery(agentContext, GenericRecord, { a: 'x' })).map((r) => r.id)).toEqual(['kept'])
      expect((await second.getAll(agentContext, GenericRecord)).map((r) => r.id)).toEqual(['kept'])
    })

    it('is created without races by two connections opening a fresh database at the same time', async () => {
      const location = await databases.newLocation()
      const [a, b] = await Promise.all([databases.open(location), databases.open(location)])
      const [first, second] = await Promise.all([openRecordStore(a), openRecordStore(b)])
      await first.save(agentContext, generic('one', { a: 'x' }))
      expect((await second.findByQuery(agentContext, GenericRecord, { a: 'x' })).map((r) => r.id)).toEqual(['one'])
    })
  })
})
