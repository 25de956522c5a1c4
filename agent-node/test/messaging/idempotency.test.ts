/**
 * The idempotency-key store on a real database (a SQLite file, and PostgreSQL): one claim wins among concurrent ones, a claim
 * survives a reopen (restart), a different request under a live key is refused, and a key older
 * than 24 h is free again; `pruneExpired` deletes only expired keys, oldest first, in batches.
 */
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { execute, selectRows } from '../../src/database/dialect.ts'
import { IDEMPOTENCY_TTL_MS, IdempotencyKeyReusedError, IdempotencyStore, requestHash } from '../../src/messaging/idempotency.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

describe.each(dialects)('IdempotencyStore on %s', (dialect) => {
  const databases = useTempDatabases('parley-idempotency-', dialect)
  const body = { type: 'text', connectionId: 'c', content: 'hi' }

  it('lets exactly one of concurrent claims send, and keeps the claim across a reopen', async () => {
    const store = await IdempotencyStore.open(await databases.open())
    const claims = await Promise.all(['m1', 'm2', 'm3'].map((id) => store.claim('admin', 'k', requestHash(body), id)))
    const claimed = claims.filter((c) => c.status === 'claimed')
    expect(claimed).toHaveLength(1)
    expect(new Set(claims.map((c) => c.messageId))).toEqual(new Set([claimed[0]!.messageId]))

    const reopened = await IdempotencyStore.open(await databases.open())
    expect(await reopened.claim('admin', 'k', requestHash(body), 'm4')).toEqual({ status: 'replay', messageId: claimed[0]!.messageId })
    expect(await reopened.claim('tunnel', 'k', requestHash(body), 'm5')).toEqual({ status: 'claimed', messageId: 'm5' })
    await expect(reopened.claim('admin', 'k', requestHash({ ...body, content: 'other' }), 'm6')).rejects.toBeInstanceOf(
      IdempotencyKeyReusedError,
    )
  })

  it('frees a key after 24 hours and after a release', async () => {
    const database = await databases.open()
    const store = await IdempotencyStore.open(database)
    await store.claim('admin', 'old', requestHash(body), 'm1')
    await execute(database, sql`UPDATE message_idempotency_keys SET created_at = ${Date.now() - IDEMPOTENCY_TTL_MS - 1}`)
    expect(await store.find('admin', 'old')).toBeUndefined()
    expect(await store.claim('admin', 'old', requestHash({ other: true }), 'm2')).toEqual({ status: 'claimed', messageId: 'm2' })
    await store.release('admin', 'old', 'm2')
    expect(await store.claim('admin', 'old', requestHash(body), 'm3')).toEqual({ status: 'claimed', messageId: 'm3' })
  })

  it('prunes only expired keys, oldest first, at most `limit` at a time', async () => {
    const database = await databases.open()
    const store = await IdempotencyStore.open(database)
    const now = Date.now()
    for (const [key, age] of [
      ['a', 3],
      ['b', 2],
      ['c', 1],
      ['live', 0],
    ] as const) {
      await store.claim('admin', key, requestHash(body), `m-${key}`)
      await execute(
        database,
        sql`UPDATE message_idempotency_keys SET created_at = ${now - age * IDEMPOTENCY_TTL_MS - age} WHERE key = ${key}`,
      )
    }
    const keys = async () =>
      (await selectRows<{ key: string }>(database, sql`SELECT key FROM message_idempotency_keys ORDER BY key`)).map((row) => row.key)

    expect(await store.pruneExpired(now, 2)).toBe(2)
    expect(await keys()).toEqual(['c', 'live'])
    expect(await store.pruneExpired(now, 2)).toBe(1)
    expect(await keys()).toEqual(['live'])
    expect(await store.pruneExpired(now, 2)).toBe(0)
  })

  it('leaves expired keys to the pruner: a claim deletes no other key', async () => {
    const database = await databases.open()
    const store = await IdempotencyStore.open(database)
    await store.claim('admin', 'old', requestHash(body), 'm1')
    await execute(database, sql`UPDATE message_idempotency_keys SET created_at = ${Date.now() - IDEMPOTENCY_TTL_MS - 1}`)
    expect(await store.claim('admin', 'new', requestHash(body), 'm2')).toEqual({ status: 'claimed', messageId: 'm2' })
    const rows = await selectRows<{ key: string }>(database, sql`SELECT key FROM message_idempotency_keys ORDER BY key`)
    expect(rows.map((row) => row.key)).toEqual(['new', 'old'])
  })
})
