/**
 * Idempotency keys of message sending (beyond the spec, which warns that a retried
 * `POST /v1/message` duplicates): the `Idempotency-Key` header of the admin API and the
 * idempotency key of every tunnel command. A key is claimed, in the agent database, with the
 * message id it produced and a hash of the request; for 24 hours the same key returns that id
 * and nothing is sent again, across restarts. Semantics follow the IETF draft
 * "The Idempotency-Key HTTP Header Field": a key reused with a different request is refused.
 *
 * The table and every statement are written once and run on SQLite or PostgreSQL through
 * `agent-node/src/database/dialect.ts`.
 */
import { createHash } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { applySchema, type Schema, execute, selectRows } from '../database/dialect.ts'
import type { Database } from '../database/index.ts'
import { DomainError } from '../errors/index.ts'

/** How long a key is remembered, in milliseconds (24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** Where a key comes from: keys of different scopes never meet. */
export type IdempotencyScope = 'admin' | 'tunnel'

/**
 * The table, one row per claimed key: `message_id` the message it produced, `request_hash` the
 * base64url SHA-256 of the canonical request body, `created_at` milliseconds since the epoch.
 */
const SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS message_idempotency_keys (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    message_id TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (scope, key)
  )`,
  `CREATE INDEX IF NOT EXISTS message_idempotency_keys_created ON message_idempotency_keys (created_at)`,
]

/** The versioned schema (`applySchema`): step 1 is the list above, as first released; append new steps. */
export const IDEMPOTENCY_SCHEMA: Schema = { name: 'message_idempotency_keys', steps: [SCHEMA_SQL] }

/** The key was used within 24 h for a different request (unprocessable, code `idempotency_key_reused`). */
export class IdempotencyKeyReusedError extends DomainError {
  constructor(readonly key: string) {
    super(
      'unprocessable',
      'idempotency_key_reused',
      `Idempotency-Key '${key}' was already used for a different request in the last 24 hours`,
    )
  }
}

/** The outcome of `claim`: `claimed` (send now, under `messageId`) or `replay` (already sent as `messageId`). */
export type Claim = { status: 'claimed'; messageId: string } | { status: 'replay'; messageId: string }

/** SHA-256 (base64url) of `request` as JSON; zod-parsed bodies have a stable key order. */
export function requestHash(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('base64url')
}

export class IdempotencyStore {
  private constructor(private readonly database: Database) {}

  /** Creates the table if missing. */
  static async open(database: Database): Promise<IdempotencyStore> {
    await applySchema(database, IDEMPOTENCY_SCHEMA)
    return new IdempotencyStore(database)
  }

  /** The live (under 24 h old) claim of `key`, if any. */
  async find(scope: IdempotencyScope, key: string): Promise<{ messageId: string; requestHash: string } | undefined> {
    const [row] = await selectRows<{ message_id: string; request_hash: string }>(
      this.database,
      sql`
      SELECT message_id, request_hash FROM message_idempotency_keys
      WHERE scope = ${scope} AND key = ${key} AND created_at > ${Date.now() - IDEMPOTENCY_TTL_MS}`,
    )
    return row && { messageId: row.message_id, requestHash: row.request_hash }
  }

  /**
   * Claims `key` for a new message `messageId` unless a live claim exists (an expired one is
   * replaced). Two concurrent claims of one key: exactly one gets `claimed`.
   * @throws IdempotencyKeyReusedError when the live claim was made for a different request.
   */
  async claim(scope: IdempotencyScope, key: string, hash: string, messageId: string): Promise<Claim> {
    const now = Date.now()
    const cutoff = now - IDEMPOTENCY_TTL_MS
    const inserted = await selectRows(
      this.database,
      sql`
      INSERT INTO message_idempotency_keys (scope, key, message_id, request_hash, created_at)
      VALUES (${scope}, ${key}, ${messageId}, ${hash}, ${now})
      ON CONFLICT (scope, key) DO UPDATE
        SET message_id = excluded.message_id, request_hash = excluded.request_hash, created_at = excluded.created_at
        WHERE message_idempotency_keys.created_at < ${cutoff}
      RETURNING message_id`,
    )
    if (inserted.length > 0) return { status: 'claimed', messageId }
    const existing = await this.find(scope, key)
    if (!existing) return this.claim(scope, key, hash, messageId) // expired in between
    if (existing.requestHash !== hash) throw new IdempotencyKeyReusedError(key)
    return { status: 'replay', messageId: existing.messageId }
  }

  /**
   * Deletes up to `limit` keys that expired by `now` (ms since the epoch), oldest first. Expired
   * keys already count as absent (`find`, `claim`), so this only frees their rows; the retention
   * pruner calls it, off the path of every message sent.
   * @returns how many keys were deleted (fewer than `limit`: none left to delete)
   */
  async pruneExpired(now: number, limit: number): Promise<number> {
    return execute(
      this.database,
      sql`DELETE FROM message_idempotency_keys WHERE (scope, key) IN (
        SELECT scope, key FROM message_idempotency_keys WHERE created_at < ${now - IDEMPOTENCY_TTL_MS} ORDER BY created_at LIMIT ${limit})`,
    )
  }

  /** Releases a claim whose message could not be queued, so a retry may succeed. */
  async release(scope: IdempotencyScope, key: string, messageId: string): Promise<void> {
    await execute(
      this.database,
      sql`DELETE FROM message_idempotency_keys
      WHERE scope = ${scope} AND key = ${key} AND message_id = ${messageId}`,
    )
  }
}
