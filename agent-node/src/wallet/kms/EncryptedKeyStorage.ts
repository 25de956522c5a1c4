/**
 * Private keys of the KMS, encrypted at rest in the agent database.
 */
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto'
import { type AgentContext, Kms } from '@credo-ts/core'
import type { NodeKeyManagementStorage } from '@credo-ts/node'
import { sql } from 'drizzle-orm'
import { applySchema, execute, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import { KMS_SCHEMA_SQL } from './schema.ts'

/** scrypt cost parameters (RFC 7914). */
interface ScryptParams {
  N: number
  r: number
  p: number
}

/** N = 2^15, r = 8, p = 1: 32 MiB and about 100 ms per derivation on the build machine. */
const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 15, r: 8, p: 1 }
const META_ID = 'kms'
const SALT_BYTES = 16
const KEY_BYTES = 32
const GCM_IV_BYTES = 12
const GCM_TAG_BYTES = 16
const INFO_STORAGE_KEY = 'parley/kms/aes-256-gcm'
const INFO_KEY_CHECK = 'parley/kms/key-check'

/**
 * The wallet key given to `EncryptedKeyStorage.open` is not the one the store was created with
 * (or is empty). Nothing was read or written.
 */
export class WalletKeyError extends Kms.KeyManagementError {
  override name = 'WalletKeyError'
}

function scryptAsync(password: string, salt: Uint8Array, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem: scrypt needs 128 * N * r bytes; leave headroom above Node's 32 MiB default.
    const options = { ...params, maxmem: 256 * params.N * params.r }
    scrypt(password, salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

function hkdf(master: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, new Uint8Array(0), info, KEY_BYTES))
}

function parseScryptParams(json: string): ScryptParams {
  const value: unknown = JSON.parse(json)
  const { N, r, p } = (value ?? {}) as Partial<Record<keyof ScryptParams, unknown>>
  const valid =
    typeof N === 'number' &&
    typeof r === 'number' &&
    typeof p === 'number' &&
    Number.isInteger(Math.log2(N)) &&
    N >= 2 ** 10 &&
    N <= 2 ** 22 &&
    Number.isInteger(r) &&
    r >= 1 &&
    r <= 32 &&
    Number.isInteger(p) &&
    p >= 1 &&
    p <= 16
  if (!valid) throw new Kms.KeyManagementError(`Key store has invalid scrypt parameters: ${json}`)
  return { N, r, p }
}

/** The row of `kms_meta` (`schema.ts`). */
interface MetaRow extends Record<string, unknown> {
  kdf: string
  kdf_params: string
  salt: string
  key_check: string
}

/** AAD binding a row to its place: `contextId + '\n' + keyId` (context ids never hold '\n'). */
function rowAad(contextId: string, keyId: string): Buffer {
  if (contextId.includes('\n')) {
    throw new Kms.KeyManagementError('Agent context correlation id must not contain a line feed')
  }
  return Buffer.from(`${contextId}\n${keyId}`, 'utf8')
}

/**
 * `NodeKeyManagementStorage` (Credo `@credo-ts/node`) that keeps private JWKs in the agent
 * database, table `kms_keys`, one partition per `agentContext.contextCorrelationId`.
 *
 * At rest each JWK (JSON) is encrypted with AES-256-GCM (random 12-byte nonce, AAD
 * `contextId + '\n' + keyId`). The AES key is HKDF-SHA256 of a master key derived from the wallet
 * key string with scrypt (N = 2^15, r = 8, p = 1, random 16-byte salt; salt and parameters in
 * `kms_meta`, so they can change for new stores without breaking old ones). `kms_meta` also keeps
 * a key-check value (HKDF of the master key under another label) so a wrong wallet key is refused
 * at `open`, before any key is touched.
 *
 * The derived key is held per instance as a `KeyObject`; JWKs are decrypted on every `get` and
 * never cached or logged. The instance does not own the database connection.
 */
export class EncryptedKeyStorage implements NodeKeyManagementStorage {
  readonly #database: Database
  readonly #key: KeyObject

  private constructor(database: Database, key: KeyObject) {
    this.#database = database
    this.#key = key
  }

  /**
   * Opens the key store in `database`: creates its tables if missing (`CREATE TABLE IF NOT
   * EXISTS`), initialises `kms_meta` with a fresh salt on first use, derives the storage key from
   * `walletKey` (scrypt, about 100 ms) and checks it against the stored key-check value.
   *
   * @param database the agent database from `openDatabase` (SQLite or PostgreSQL)
   * @param walletKey the wallet key (e.g. `AGENT_WALLET_KEY`), any non-empty string, used as UTF-8
   * @returns a storage to pass to `new ParleyKeyManagementService(storage)`
   * @throws WalletKeyError when `walletKey` is empty or does not match the one the store was
   *   created with; Kms.KeyManagementError when `kms_meta` is unreadable; database errors as is
   */
  static async open(database: Database, walletKey: string): Promise<EncryptedKeyStorage> {
    if (walletKey.length === 0) throw new WalletKeyError('The wallet key must not be empty')
    await applySchema(database, KMS_SCHEMA_SQL)

    let meta = await EncryptedKeyStorage.#readMeta(database)
    let master: Buffer | undefined
    if (!meta) {
      const salt = randomBytes(SALT_BYTES)
      master = await scryptAsync(walletKey, salt, DEFAULT_SCRYPT)
      const keyCheck = hkdf(master, INFO_KEY_CHECK).toString('base64url')
      await execute(
        database,
        sql`INSERT INTO kms_meta (id, kdf, kdf_params, salt, key_check, created_at)
          VALUES (${META_ID}, 'scrypt', ${JSON.stringify(DEFAULT_SCRYPT)}, ${salt.toString('base64url')}, ${keyCheck},
            ${new Date().toISOString()})
          ON CONFLICT (id) DO NOTHING`,
      )
      // Another process may have created the store in the meantime: its row wins.
      meta = await EncryptedKeyStorage.#readMeta(database)
      if (!meta) throw new Kms.KeyManagementError('Key store metadata (kms_meta) could not be created')
      if (meta.salt !== salt.toString('base64url')) master = undefined
    }

    if (meta.kdf !== 'scrypt') throw new Kms.KeyManagementError(`Key store uses unknown KDF '${meta.kdf}'`)
    master ??= await scryptAsync(walletKey, Buffer.from(meta.salt, 'base64url'), parseScryptParams(meta.kdf_params))
    try {
      const expected = Buffer.from(meta.key_check, 'base64url')
      const actual = hkdf(master, INFO_KEY_CHECK)
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
        throw new WalletKeyError(
          'The wallet key does not match the one the key store was created with (check AGENT_WALLET_KEY)',
        )
      }
      const storageKey = hkdf(master, INFO_STORAGE_KEY)
      const key = createSecretKey(storageKey)
      storageKey.fill(0)
      return new EncryptedKeyStorage(database, key)
    } finally {
      master.fill(0)
    }
  }

  static async #readMeta(database: Database): Promise<MetaRow | undefined> {
    const rows = await selectRows<MetaRow>(
      database,
      sql`SELECT kdf, kdf_params, salt, key_check FROM kms_meta WHERE id = ${META_ID}`,
    )
    return rows[0]
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
    const [row] = await selectRows<{ ciphertext: string; iv: string }>(
      this.#database,
      sql`SELECT ciphertext, iv FROM kms_keys WHERE context_id = ${contextId} AND key_id = ${keyId}`,
    )
    if (!row) return null

    const sealed = Buffer.from(row.ciphertext, 'base64url')
    let plaintext: Buffer | undefined
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(row.iv, 'base64url'), {
        authTagLength: GCM_TAG_BYTES,
      })
      decipher.setAAD(aad)
      decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG_BYTES))
      plaintext = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - GCM_TAG_BYTES)), decipher.final()])
      return JSON.parse(plaintext.toString('utf8')) as Kms.KmsJwkPrivate
    } catch (error) {
      throw new Kms.KeyManagementError(
        `Stored key '${keyId}' could not be decrypted: ` +
          'the row was altered or does not belong to this key id, context or store',
        { cause: error instanceof Error ? error : undefined },
      )
    } finally {
      plaintext?.fill(0)
    }
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
    const iv = randomBytes(GCM_IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: GCM_TAG_BYTES })
    cipher.setAAD(rowAad(contextId, keyId))
    const plaintext = Buffer.from(JSON.stringify(jwk), 'utf8')
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
    plaintext.fill(0)

    await execute(
      this.#database,
      sql`INSERT INTO kms_keys (context_id, key_id, ciphertext, iv, created_at)
        VALUES (${contextId}, ${keyId}, ${sealed.toString('base64url')}, ${iv.toString('base64url')},
          ${new Date().toISOString()})
        ON CONFLICT (context_id, key_id) DO UPDATE SET ciphertext = excluded.ciphertext, iv = excluded.iv`,
    )
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
    return removed > 0
  }
}
