/**
 * Private keys of the KMS, encrypted at rest in the agent database.
 */
import { type AgentContext, Kms } from '@credo-ts/core'
import type { NodeKeyManagementStorage } from '@credo-ts/node'
import { sql } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import { execute, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import { deriveWalletKeys, type SealedValue, type SealingKey } from './WalletKeys.ts'

/** How many sealed rows stay in memory (the agent's keys in use: one or two per connection). */
const SEALED_ROW_CACHE_SIZE = 1024

/**
 * How long a cached sealed row is used without reading the database again, in milliseconds: how
 * long a key that another agent-node instance deleted or replaced can go unseen here.
 */
const SEALED_ROW_TTL_MS = 60_000

/** A row's place, `contextId + '\n' + keyId` (context ids never hold '\n'): its AAD and its cache key. */
function rowPlace(contextId: string, keyId: string): string {
  return `${contextId}\n${keyId}`
}

/** AAD binding a row to its place (`rowPlace`). */
function rowAad(contextId: string, keyId: string): Buffer {
  if (contextId.includes('\n')) {
    throw new Kms.KeyManagementError('Agent context correlation id must not contain a line feed')
  }
  return Buffer.from(rowPlace(contextId, keyId), 'utf8')
}

/**
 * `NodeKeyManagementStorage` (Credo `@credo-ts/node`) that keeps private JWKs in the agent
 * database, table `kms_keys`, one partition per `agentContext.contextCorrelationId`.
 *
 * At rest each JWK (JSON) is sealed with the KMS key of `deriveWalletKeys` (`WalletKeys.ts`:
 * AES-256-GCM, random 12-byte nonce, AAD `contextId + '\n' + keyId`). JWKs are decrypted on
 * every `get` and never cached or logged. The instance does not own the database connection.
 *
 * The sealed rows, still encrypted, are kept in a bounded in-memory cache: every DIDComm message
 * packed or unpacked reads one of the same few keys, and reading the row cost more than opening
 * it (about 0.15 ms each, three per chat round trip; bench/README.md, "chat-round-trip"). This
 * instance's own `set` and `delete` drop the cached row. Another instance sharing the database
 * (a cluster on PostgreSQL) that deletes or replaces a key is seen here within
 * `SEALED_ROW_TTL_MS`; Credo never replaces a key under its id.
 */
export class EncryptedKeyStorage implements NodeKeyManagementStorage {
  readonly #database: Database
  readonly #key: SealingKey
  readonly #sealedRows = new LRUCache<string, SealedValue>({ max: SEALED_ROW_CACHE_SIZE, ttl: SEALED_ROW_TTL_MS })

  /**
   * @param database the agent database, whose `kms_keys` table exists (`KMS_SCHEMA`, created
   *   by `deriveWalletKeys`)
   * @param key `deriveWalletKeys(database, walletKey).kms`
   */
  constructor(database: Database, key: SealingKey) {
    this.#database = database
    this.#key = key
  }

  /**
   * Opens the key store in `database`: creates its tables if missing and derives its key from
   * `walletKey` (`deriveWalletKeys`, about 100 ms), refusing a wrong wallet key.
   *
   * @param database the agent database from `openDatabase` (SQLite or PostgreSQL)
   * @param walletKey the wallet key (e.g. `AGENT_WALLET_KEY`), any non-empty string, used as UTF-8
   * @returns a storage to pass to `new ParleyKeyManagementService(storage)`
   * @throws WalletKeyError when `walletKey` is empty or does not match the one the store was
   *   created with; Kms.KeyManagementError when `kms_meta` is unreadable; database errors as is
   */
  static async open(database: Database, walletKey: string): Promise<EncryptedKeyStorage> {
    return new EncryptedKeyStorage(database, (await deriveWalletKeys(database, walletKey)).kms)
  }

  /**
   * The private JWK stored under `keyId` in this context, decrypted.
   *
   * @returns the JWK (with its `kid`), or null when there is none
   * @throws Kms.KeyManagementError when the row does not decrypt (tampered, or copied from another
   *   key id, context or store)
   */
  async get(agentContext: AgentContext, keyId: string): Promise<Kms.KmsJwkPrivate | null> {
    const contextId = agentContext.contextCorrelationId
    const aad = rowAad(contextId, keyId)
    const row = await this.#sealedRow(contextId, keyId)
    if (!row) return null

    let plaintext: Buffer | undefined
    try {
      plaintext = this.#key.open(row, aad)
      return JSON.parse(plaintext.toString('utf8')) as Kms.KmsJwkPrivate
    } catch (error) {
      throw new Kms.KeyManagementError(
        `Stored key '${keyId}' could not be decrypted: the row was altered or does not belong to this key id, context or store`,
        { cause: error instanceof Error ? error : undefined },
      )
    } finally {
      plaintext?.fill(0)
    }
  }

  /** The sealed row of `keyId` in this context, from the cache or the database; null when there is none. */
  async #sealedRow(contextId: string, keyId: string): Promise<SealedValue | null> {
    const cacheKey = rowPlace(contextId, keyId)
    const cached = this.#sealedRows.get(cacheKey)
    if (cached) return cached
    const [row] = await selectRows<{ ciphertext: string; iv: string }>(
      this.#database,
      sql`SELECT ciphertext, iv FROM kms_keys WHERE context_id = ${contextId} AND key_id = ${keyId}`,
    )
    if (!row) return null
    this.#sealedRows.set(cacheKey, row)
    return row
  }

  /** Whether a key is stored under `keyId` in this context (nothing is decrypted). */
  async has(agentContext: AgentContext, keyId: string): Promise<boolean> {
    const rows = await selectRows(
      this.#database,
      sql`SELECT key_id FROM kms_keys WHERE context_id = ${agentContext.contextCorrelationId} AND key_id = ${keyId}`,
    )
    return rows.length > 0
  }

  /**
   * Stores (or replaces) the private JWK under `keyId` in this context, encrypted.
   *
   * @param jwk the private JWK; serialized as JSON, never logged
   */
  async set(agentContext: AgentContext, keyId: string, jwk: Kms.KmsJwkPrivate): Promise<void> {
    const contextId = agentContext.contextCorrelationId
    const plaintext = Buffer.from(JSON.stringify(jwk), 'utf8')
    const { ciphertext, iv } = this.#key.seal(plaintext, rowAad(contextId, keyId))
    plaintext.fill(0)

    await execute(
      this.#database,
      sql`INSERT INTO kms_keys (context_id, key_id, ciphertext, iv, created_at)
        VALUES (${contextId}, ${keyId}, ${ciphertext}, ${iv},
          ${new Date().toISOString()})
        ON CONFLICT (context_id, key_id) DO UPDATE SET ciphertext = excluded.ciphertext, iv = excluded.iv`,
    )
    this.#sealedRows.delete(rowPlace(contextId, keyId))
  }

  /**
   * Removes the key stored under `keyId` in this context.
   *
   * @returns whether a key was there and is now removed
   */
  async delete(agentContext: AgentContext, keyId: string): Promise<boolean> {
    const removed = await execute(
      this.#database,
      sql`DELETE FROM kms_keys WHERE context_id = ${agentContext.contextCorrelationId} AND key_id = ${keyId}`,
    )
    this.#sealedRows.delete(rowPlace(agentContext.contextCorrelationId, keyId))
    return removed > 0
  }
}
