/**
 * Storage of the tunnel gateway: handshake nonces already used (replay protection), the
 * outbox of commands not yet confirmed by agent-node, and the gateway's counters.
 */
import type { CommandFrame } from '@parley/shared/tunnel'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** A nonce stays here until its handshake's timestamp leaves the skew window (`expiresAt`, ms). */
export const nonces = sqliteTable(
  'nonces',
  {
    nonce: text('nonce').primaryKey(),
    expiresAt: integer('expires_at').notNull(),
  },
  (table) => [index('nonces_expires_at').on(table.expiresAt)],
)

/** Commands in the order they were issued; a row leaves after its `command-result` arrives (with the gateway's write-behind flush). */
export const outbox = sqliteTable('outbox', {
  position: integer('position').primaryKey({ autoIncrement: true }),
  commandId: text('command_id').notNull().unique(),
  frame: text('frame', { mode: 'json' }).$type<CommandFrame>().notNull(),
  createdAt: integer('created_at').notNull(),
})

/** What the gateway counted since it was created (`counters.ts`), by snake_case name; sent in `stats` frames. */
export const counters = sqliteTable('counters', {
  name: text('name').primaryKey(),
  value: integer('value').notNull(),
})

export const schema = { nonces, outbox, counters }
