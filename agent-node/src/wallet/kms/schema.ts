/**
 * Tables of the key store (`EncryptedKeyStorage`) in the agent database.
 *
 * Every column is TEXT (binary values base64url, times ISO 8601 UTC) and the DDL below uses only
 * SQL that SQLite and PostgreSQL both accept, so the same statements serve a later `pg` dialect.
 */
import { primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * One row per private key: the private JWK as JSON, encrypted with AES-256-GCM under the key
 * derived from the wallet key, with AAD `context_id + '\n' + key_id` so a row cannot be moved to
 * another key id or context.
 */
export const kmsKeys = sqliteTable(
  'kms_keys',
  {
    /** `agentContext.contextCorrelationId` (one partition per tenant). */
    contextId: text('context_id').notNull(),
    /** The KMS key id (`kid`). */
    keyId: text('key_id').notNull(),
    /** base64url of AES-256-GCM ciphertext || 16-byte tag. */
    ciphertext: text('ciphertext').notNull(),
    /** base64url of the 12-byte GCM nonce. */
    iv: text('iv').notNull(),
    /** ISO 8601 UTC time the key was first stored. */
    createdAt: text('created_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.contextId, table.keyId] })],
)

/**
 * A single row (`id = 'kms'`) describing how the storage key is derived from the wallet key,
 * and a check value that tells a wrong wallet key at open time.
 */
export const kmsMeta = sqliteTable('kms_meta', {
  /** Always `'kms'`. */
  id: text('id').primaryKey(),
  /** Key derivation function; `'scrypt'`. */
  kdf: text('kdf').notNull(),
  /** JSON of the KDF parameters, e.g. `{"N":32768,"r":8,"p":1}`. */
  kdfParams: text('kdf_params').notNull(),
  /** base64url of the random 16-byte KDF salt. */
  salt: text('salt').notNull(),
  /** base64url of the key-check value derived from the master key (HKDF, its own label). */
  keyCheck: text('key_check').notNull(),
  /** ISO 8601 UTC time the store was created. */
  createdAt: text('created_at').notNull(),
})

/** `CREATE TABLE IF NOT EXISTS` statements for the tables above, in order; portable SQL. */
export const KMS_SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS kms_meta (
    id TEXT PRIMARY KEY,
    kdf TEXT NOT NULL,
    kdf_params TEXT NOT NULL,
    salt TEXT NOT NULL,
    key_check TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS kms_keys (
    context_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    ciphertext TEXT NOT NULL,
    iv TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (context_id, key_id)
  )`,
]
