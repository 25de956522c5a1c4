/**
 * Storage of the directory: one row per connection on which an identity is authenticated, with
 * the roles it presented there.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const members = sqliteTable(
  'members',
  {
    connectionId: text('connection_id').primaryKey(),
    identity: text('identity').notNull(),
    roles: text('roles', { mode: 'json' }).$type<string[]>().notNull(),
    /** In adminUsers / adminAvatars when it authenticated (bypasses every role check). */
    admin: integer('admin', { mode: 'boolean' }).notNull(),
    /** When the identity authenticated on this connection (ms since the epoch). */
    since: integer('since').notNull(),
  },
  (table) => [index('members_identity').on(table.identity)],
)

export const schema = { members }
