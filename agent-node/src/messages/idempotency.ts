/**
 * Idempotency keys of message sending (beyond the spec, which warns that a retried
 * `POST /v1/message` duplicates): the `Idempotency-Key` header of the admin API and the
 * idempotency key of every tunnel command. A key is claimed, in the agent database, with the
 * message id it produced and a hash of the request; for 24 hours the same key returns that id
 * and nothing is sent again, across restarts. Semantics follow the IETF draft
 * "The Idempotency-Key HTTP Header Field": a key reused with a different request is refused.
 *
 * The DDL is SQL that SQLite and PostgreSQL both accept.
 */
import { createHash } from 'node:crypto'
import { and, eq, lt, sql } from 'drizzle-orm'
import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { Database } from '../database/index.ts'

/** How long a key is remembered, in milliseconds (24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** Where a key comes from: keys of different scopes never meet. */
export type IdempotencyScope = 'admin' | 'tunnel'

export const messageIdempotencyKeys = sqliteTable(
  'message_idempotency_keys',
  {
    scope: text('scope').$type<IdempotencyScope>().notNull(),
    key: text('key').notNull(),
    messageId: text('message_id').notNull(),
    /** base64url SHA-256 of the canonical request body. */
    requestHash: text('request_hash').notNull(),
    /** Milliseconds since the epoch. */
    createdAt: integer('created_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.scope, table.key] })],
)

const SCHEMA_SQL = [
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

/** The key was used within 24 h for a different request (HTTP 422). */
export class IdempotencyKeyReusedError extends Error {
  constructor(readonly key: string) {
    super(`Idempotency-Key '${key}' was already used for a different request in the last 24 hours`)
    this.name = 'IdempotencyKeyReusedError'
  }
}

/** The outcome of `claim`: `claimed` (send now, under `messageId`) or `replay` (already sent as `messageId`). */
export type Claim = { status: 'claimed'; messageId: string } | { status: 'replay'; messageId: string }

/** SHA-256 (base64url) of `request` as JSON; zod-parsed bodies have a stable key order. */
export function requestHash(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('base64url')
}

export class IdempotencyStore {
  private constructor(private readonly db: Database['db']) {}

  /** Creates the table if missing. */
  static async open(database: Database): Promise<IdempotencyStore> {
    for (const statement of SCHEMA_SQL) await database.db.run(sql.raw(statement))
    return new IdempotencyStore(database.db)
  }

  /** The live (under 24 h old) claim of `key`, if any. */
  async find(scope: IdempotencyScope, key: string): Promise<{ messageId: string; requestHash: string } | undefined> {
    const [row] = await this.db.select().from(messageIdempotencyKeys)
      .where(and(eq(messageIdempotencyKeys.scope, scope), eq(messageIdempotencyKeys.key, key)))
    return row && row.createdAt > Date.now() - IDEMPOTENCY_TTL_MS ? row : undefined
  }

  /**
   * Claims `key` for a new message `messageId` unless a live claim exists (an expired one is
   * replaced). Two concurrent claims of one key: exactly one gets `claimed`.
   * @throws IdempotencyKeyReusedError when the live claim was made for a different request.
   */
  async claim(scope: IdempotencyScope, key: string, hash: string, messageId: string): Promise<Claim> {
    const now = Date.now()
    const cutoff = now - IDEMPOTENCY_TTL_MS
    const inserted = await this.db.insert(messageIdempotencyKeys)
      .values({ scope, key, messageId, requestHash: hash, createdAt: now })
      .onConflictDoUpdate({
        target: [messageIdempotencyKeys.scope, messageIdempotencyKeys.key],
        set: { messageId, requestHash: hash, createdAt: now },
        setWhere: lt(messageIdempotencyKeys.createdAt, cutoff),
      })
      .returning({ messageId: messageIdempotencyKeys.messageId })
    if (inserted.length > 0) {
      await this.db.delete(messageIdempotencyKeys).where(lt(messageIdempotencyKeys.createdAt, cutoff))
      return { status: 'claimed', messageId }
    }
    const existing = await this.find(scope, key)
    if (!existing) return this.claim(scope, key, hash, messageId) // expired in between
    if (existing.requestHash !== hash) throw new IdempotencyKeyReusedError(key)
    return { status: 'replay', messageId: existing.messageId }
  }

  /** Releases a claim whose message could not be queued, so a retry may succeed. */
  async release(scope: IdempotencyScope, key: string, messageId: string): Promise<void> {
    await this.db.delete(messageIdempotencyKeys)
      .where(and(eq(messageIdempotencyKeys.scope, scope), eq(messageIdempotencyKeys.key, key), eq(messageIdempotencyKeys.messageId, messageId)))
  }
}
