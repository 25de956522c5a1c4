/**
 * EncryptedKeyStorage: private JWKs encrypted at rest in the agent database, surviving restarts,
 * refused to a wrong wallet key, bound to their context and key id.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type AgentContext, Kms } from '@credo-ts/core'
import { sql } from 'drizzle-orm'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it, vi } from 'vitest'
import { execute, selectRows } from '../../src/database/dialect.ts'
import type { Database } from '../../src/database/index.ts'
import { EncryptedKeyStorage, ParleyKeyManagementService, WalletKeyError } from '../../src/wallet/kms/index.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const WALLET_KEY = 'correct horse battery staple'
const context = (contextCorrelationId: string) => ({ contextCorrelationId }) as AgentContext
const agentContext = context('default')
const utf8 = (text: string) => new TextEncoder().encode(text)

interface KeyRow extends Record<string, unknown> {
  context_id: string
  key_id: string
  ciphertext: string
  iv: string
  created_at: string
}

const keyRows = (database: Database) => selectRows<KeyRow>(database, sql`SELECT * FROM kms_keys`)

describe.each(dialects)('EncryptedKeyStorage on %s', (dialect) => {
  const databases = useTempDatabases('parley-kms-', dialect)
  const open = (path?: string) => databases.open(path)
  /** Two stores on one new database, as two agent-node instances sharing it. */
  const twoStores = async () => {
    const database = await open()
    return Promise.all([EncryptedKeyStorage.open(database, WALLET_KEY), EncryptedKeyStorage.open(database, WALLET_KEY)])
  }
  const octJwk = { kty: 'oct', k: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } as const

  it('keeps keys across a restart: sign after reopening with the same wallet key', async () => {
    const first = await open()
    const kms = new ParleyKeyManagementService(await EncryptedKeyStorage.open(first, WALLET_KEY))
    const { keyId, publicJwk } = await kms.createKey(agentContext, { type: { kty: 'OKP', crv: 'Ed25519' } })
    await first.close()

    const second = await open()
    const reopened = new ParleyKeyManagementService(await EncryptedKeyStorage.open(second, WALLET_KEY))
    expect(await reopened.getPublicKey(agentContext, keyId)).toEqual(publicJwk)
    const data = utf8('signed after restart')
    const { signature } = await reopened.sign(agentContext, { keyId, algorithm: 'EdDSA', data })
    const verified = await reopened.verify(agentContext, {
      key: { publicJwk },
      algorithm: 'EdDSA',
      data,
      signature,
    })
    expect(verified.verified).toBe(true)
  })

  it('refuses a wrong wallet key at open, with a clear error', async () => {
    const first = await open()
    await EncryptedKeyStorage.open(first, WALLET_KEY)
    await first.close()

    const second = await open()
    const attempt = EncryptedKeyStorage.open(second, 'not the wallet key')
    await expect(attempt).rejects.toThrow(WalletKeyError)
    await expect(attempt).rejects.toThrow(/wallet key does not match the one the key store was created with/)
    await expect(EncryptedKeyStorage.open(second, '')).rejects.toThrow(WalletKeyError)
    // The right key still opens it.
    await expect(EncryptedKeyStorage.open(second, WALLET_KEY)).resolves.toBeInstanceOf(EncryptedKeyStorage)
  })

  it('never writes the private key in clear to the database (SQLite: its files)', async () => {
    const database = await open()
    const storage = await EncryptedKeyStorage.open(database, WALLET_KEY)
    const kms = new ParleyKeyManagementService(storage)
    const secrets: string[] = []
    const keyIds: string[] = []
    const types = [
      { kty: 'OKP', crv: 'Ed25519' },
      { kty: 'OKP', crv: 'X25519' },
      { kty: 'EC', crv: 'P-256' },
    ] as const
    for (const type of types) {
      const { keyId } = await kms.createKey(agentContext, { type })
      const jwk = await storage.get(agentContext, keyId)
      if (!jwk || !('d' in jwk)) throw new Error('expected a private JWK')
      secrets.push(jwk.d)
      keyIds.push(keyId)
    }
    // The stored column, decoded, is not the JWK either (not merely re-encoded).
    const rows = await keyRows(database)
    expect(rows).toHaveLength(secrets.length)
    const storedBytes = rows.map((row) => Buffer.from(row.ciphertext, 'base64url'))
    // SQLite: the main file and any WAL / shared-memory file next to it; PostgreSQL: every row
    // of both tables, as the server returns them
    const meta = await selectRows(database, sql`SELECT * FROM kms_meta`)
    await database.close()
    const files =
      dialect === 'sqlite'
        ? readdirSync(databases.dir).map((name) => readFileSync(join(databases.dir, name)))
        : [...rows, ...meta].map((row) => Buffer.from(JSON.stringify(row)))
    // Control: the rows did reach the files (key ids are stored in clear).
    for (const keyId of keyIds) expect(files.some((bytes) => bytes.includes(keyId))).toBe(true)
    for (const d of secrets) {
      const raw = Buffer.from(d, 'base64url')
      for (const bytes of [...files, ...storedBytes]) {
        expect(bytes.includes(d)).toBe(false)
        expect(bytes.includes(raw.toString('base64'))).toBe(false)
        expect(bytes.includes(raw)).toBe(false)
      }
    }
  })

  it('implements get / has / set / delete, partitioned by context', async () => {
    const storage = await EncryptedKeyStorage.open(await open(':memory:'), WALLET_KEY)
    const jwk = { kty: 'oct', k: 'c2VjcmV0LWtleS1ieXRlcy0wMTIzNDU2Nzg5YWJjZGVm', kid: 'k1' } as const
    const tenant = context('tenant-1')

    expect(await storage.get(agentContext, 'k1')).toBeNull()
    expect(await storage.has(agentContext, 'k1')).toBe(false)
    await storage.set(agentContext, 'k1', jwk)
    expect(await storage.get(agentContext, 'k1')).toEqual(jwk)
    expect(await storage.has(agentContext, 'k1')).toBe(true)
    expect(await storage.has(tenant, 'k1')).toBe(false)
    expect(await storage.get(tenant, 'k1')).toBeNull()

    const replaced = { ...jwk, k: 'b3RoZXItc2VjcmV0LWJ5dGVzLTAxMjM0NTY3ODlhYmNk' }
    await storage.set(agentContext, 'k1', replaced)
    expect(await storage.get(agentContext, 'k1')).toEqual(replaced)

    expect(await storage.delete(tenant, 'k1')).toBe(false)
    expect(await storage.delete(agentContext, 'k1')).toBe(true)
    expect(await storage.delete(agentContext, 'k1')).toBe(false)
    expect(await storage.has(agentContext, 'k1')).toBe(false)
  })

  it('a row copied to another key id or context does not decrypt (AAD binding)', async () => {
    const database = await open(':memory:')
    const storage = await EncryptedKeyStorage.open(database, WALLET_KEY)
    const kms = new ParleyKeyManagementService(storage)
    const { keyId } = await kms.createKey(agentContext, { type: { kty: 'OKP', crv: 'Ed25519' } })
    const [row] = (await keyRows(database)).filter((stored) => stored.context_id === 'default' && stored.key_id === keyId)
    if (!row) throw new Error('expected the stored row')
    const copy = (contextId: string, copiedKeyId: string) =>
      execute(
        database,
        sql`INSERT INTO kms_keys (context_id, key_id, ciphertext, iv, created_at)
          VALUES (${contextId}, ${copiedKeyId}, ${row.ciphertext}, ${row.iv}, ${row.created_at})`,
      )
    await copy('default', 'swapped')
    await copy('tenant-2', keyId)

    await expect(storage.get(agentContext, 'swapped')).rejects.toThrow(Kms.KeyManagementError)
    await expect(storage.get(context('tenant-2'), keyId)).rejects.toThrow(/could not be decrypted/)
    // Through the KMS the failure is a KeyManagementError too, not a crash.
    await expect(kms.sign(agentContext, { keyId: 'swapped', algorithm: 'EdDSA', data: utf8('x') })).rejects.toThrow(Kms.KeyManagementError)
    // The original row is intact.
    expect(await storage.get(agentContext, keyId)).not.toBeNull()
  })

  it('a tampered row does not decrypt', async () => {
    const database = await open(':memory:')
    const storage = await EncryptedKeyStorage.open(database, WALLET_KEY)
    await storage.set(agentContext, 'k', { kty: 'oct', k: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })
    const [row] = await keyRows(database)
    if (!row) throw new Error('expected the stored row')
    const bytes = Buffer.from(row.ciphertext, 'base64url')
    bytes[0] = (bytes[0] as number) ^ 1
    await execute(database, sql`UPDATE kms_keys SET ciphertext = ${bytes.toString('base64url')} WHERE key_id = 'k'`)
    await expect(storage.get(agentContext, 'k')).rejects.toThrow(Kms.KeyManagementError)
  })

  it('two stores opened on the same database share one salt and read each other’s keys', async () => {
    const [a, b] = await twoStores()
    await a.set(agentContext, 'shared', octJwk)
    expect(await b.get(agentContext, 'shared')).toEqual(octJwk)
  })

  it('reuses a sealed row it read: a key another instance deletes is seen gone within 60 s', async () => {
    const [a, b] = await twoStores()
    await a.set(agentContext, 'cached', octJwk)
    expect(await b.get(agentContext, 'cached')).toEqual(octJwk)

    // a's delete removes the row; b opens the sealed row it kept, without reading the database
    expect(await a.delete(agentContext, 'cached')).toBe(true)
    expect(await a.get(agentContext, 'cached')).toBeNull()
    expect(await b.get(agentContext, 'cached')).toEqual(octJwk)

    const now = performance.now()
    vi.spyOn(performance, 'now').mockReturnValue(now + 60_001)
    try {
      await sleep(5) // the cache reads the clock at most once a millisecond
      expect(await b.get(agentContext, 'cached')).toBeNull()
    } finally {
      vi.restoreAllMocks()
    }
  })
})
