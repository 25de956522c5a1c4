import type { Schema } from '../../database/dialect.ts'

/**
 * Tables of the key store (`EncryptedKeyStorage`) in the agent database, as the portable
 * `CREATE TABLE IF NOT EXISTS` statements `applySchema` (`agent-node/src/database`) runs on
 * SQLite and PostgreSQL alike. Every column is TEXT: binary values base64url, times ISO 8601 UTC.
 *
 * `kms_meta`: a single row (`id = 'kms'`) describing how the storage key is derived from the
 * wallet key (`kdf` `'scrypt'`, `kdf_params` JSON such as `{"N":32768,"r":8,"p":1}`, `salt` the
 * random 16-byte KDF salt), and `key_check`, a value derived from the master key under its own
 * HKDF label that tells a wrong wallet key at open time.
 *
 * `kms_keys`: one row per private key, partitioned by `context_id`
 * (`agentContext.contextCorrelationId`), keyed by `key_id` (the KMS `kid`). `ciphertext` is the
 * private JWK as JSON, encrypted with AES-256-GCM under the key derived from the wallet key
 * (ciphertext || 16-byte tag), `iv` the 12-byte GCM nonce; the AAD is
 * `context_id + '\n' + key_id`, so a row cannot be moved to another key id or context.
 */
const KMS_SCHEMA_SQL: readonly string[] = [
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

/**
 * The versioned schema of the key store (`applySchema`, `agent-node/src/database/README.md`,
 * "Migrations"): step 1 is the list above, the tables as first released. Append new steps; never
 * edit a released one.
 */
export const KMS_SCHEMA: Schema = { name: 'kms', steps: [KMS_SCHEMA_SQL] }
