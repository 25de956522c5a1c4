/**
 * The keys that protect the wallet at rest, derived from the wallet key (`AGENT_WALLET_KEY`):
 * one for the KMS's private JWKs (`kms_keys`), one for the Credo records (`credo_records`, where
 * AnonCreds private parts such as credential-definition private keys and link secrets live).
 * Both are AES-256-GCM keys, HKDF-SHA256 of one scrypt master key under different labels.
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
import { Kms } from '@credo-ts/core'
import { sql } from 'drizzle-orm'
import { applySchema, execute, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import { KMS_SCHEMA } from './schema.ts'

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
const INFO_KMS_KEY = 'parley/kms/aes-256-gcm'
const INFO_RECORDS_KEY = 'parley/records/aes-256-gcm'
const INFO_KEY_CHECK = 'parley/kms/key-check'

/**
 * The wallet key given to `deriveWalletKeys` is not the one the store was created with (or is
 * empty). Nothing was read or written.
 */
export class WalletKeyError extends Kms.KeyManagementError {
  override name = 'WalletKeyError'
}

/** A sealed value did not open: altered, or sealed under another key or associated data. */
export class SealedValueError extends Kms.KeyManagementError {
  override name = 'SealedValueError'
}

/** A value sealed by `SealingKey.seal`: both parts base64url. */
export interface SealedValue {
  /** ciphertext followed by the 16-byte GCM tag */
  ciphertext: string
  /** the 12-byte GCM nonce */
  iv: string
}

/**
 * An AES-256-GCM key for data at rest: random 12-byte nonce per value, associated data binding the
 * value to its place (row key), so a sealed value cannot be moved to another row.
 */
export class SealingKey {
  readonly #key: KeyObject

  /** @param key 32 bytes; copied into a `KeyObject` (wipe your copy). */
  constructor(key: Uint8Array) {
    this.#key = createSecretKey(key)
  }

  /** Encrypts `plaintext` bound to `aad`. */
  seal(plaintext: Uint8Array, aad: Uint8Array): SealedValue {
    const iv = randomBytes(GCM_IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: GCM_TAG_BYTES })
    cipher.setAAD(aad)
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
    return { ciphertext: sealed.toString('base64url'), iv: iv.toString('base64url') }
  }

  /**
   * Decrypts a value sealed with this key and `aad`. Wipe the result when it holds a secret.
   * @throws SealedValueError when it does not open (altered, other key, other `aad`)
   */
  open(value: SealedValue, aad: Uint8Array): Buffer {
    try {
      const sealed = Buffer.from(value.ciphertext, 'base64url')
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(value.iv, 'base64url'), { authTagLength: GCM_TAG_BYTES })
      decipher.setAAD(aad)
      decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG_BYTES))
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - GCM_TAG_BYTES)), decipher.final()])
    } catch (error) {
      throw new SealedValueError('A value encrypted at rest could not be decrypted', { cause: error instanceof Error ? error : undefined })
    }
  }
}

/** The keys `deriveWalletKeys` returns. */
export interface WalletKeys {
  /** seals the KMS's private JWKs (`EncryptedKeyStorage`) */
  kms: SealingKey
  /** seals Credo record values (`DrizzleStorageService`) */
  records: SealingKey
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

function sealingKey(master: Uint8Array, info: string): SealingKey {
  const bytes = hkdf(master, info)
  const key = new SealingKey(bytes)
  bytes.fill(0)
  return key
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

async function readMeta(database: Database): Promise<MetaRow | undefined> {
  const rows = await selectRows<MetaRow>(database, sql`SELECT kdf, kdf_params, salt, key_check FROM kms_meta WHERE id = ${META_ID}`)
  return rows[0]
}

/**
 * Derives the at-rest keys of the wallet in `database` from `walletKey`: creates `kms_meta` if
 * missing and initialises it with a fresh salt on first use, derives the scrypt master key
 * (N = 2^15, r = 8, p = 1, random 16-byte salt; salt and parameters in `kms_meta`, so they can
 * change for new stores without breaking old ones, about 100 ms) and checks it against the stored
 * key-check value (HKDF of the master key under its own label), so a wrong wallet key is refused
 * before anything is read. The master key is wiped before returning.
 *
 * @param walletKey the wallet key (e.g. `AGENT_WALLET_KEY`), any non-empty string, used as UTF-8
 * @throws WalletKeyError when `walletKey` is empty or does not match the one the store was
 *   created with; Kms.KeyManagementError when `kms_meta` is unreadable; database errors as is
 */
export async function deriveWalletKeys(database: Database, walletKey: string): Promise<WalletKeys> {
  if (walletKey.length === 0) throw new WalletKeyError('The wallet key must not be empty')
  await applySchema(database, KMS_SCHEMA)

  let meta = await readMeta(database)
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
    meta = await readMeta(database)
    if (!meta) throw new Kms.KeyManagementError('Key store metadata (kms_meta) could not be created')
    if (meta.salt !== salt.toString('base64url')) master = undefined
  }

  if (meta.kdf !== 'scrypt') throw new Kms.KeyManagementError(`Key store uses unknown KDF '${meta.kdf}'`)
  master ??= await scryptAsync(walletKey, Buffer.from(meta.salt, 'base64url'), parseScryptParams(meta.kdf_params))
  try {
    const expected = Buffer.from(meta.key_check, 'base64url')
    const actual = hkdf(master, INFO_KEY_CHECK)
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
      throw new WalletKeyError('The wallet key does not match the one the key store was created with (check AGENT_WALLET_KEY)')
    }
    return { kms: sealingKey(master, INFO_KMS_KEY), records: sealingKey(master, INFO_RECORDS_KEY) }
  } finally {
    master.fill(0)
  }
}
