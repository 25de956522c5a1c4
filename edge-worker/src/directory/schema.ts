/**
 * Storage of the directory: one row per connection on which an identity is authenticated, with
 * the roles it presented there, and each of those roles as a row of `member_roles`, so the
 * holders of a role are found by index.
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

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
  (table) => [index('members_identity').on(table.identity), index('members_admin').on(table.admin, table.identity)],
)

/** One role a member presented on its connection (the same roles as `members.roles`, kept with it). */
export const memberRoles = sqliteTable(
  'member_roles',
  {
    role: text('role').notNull(),
    connectionId: text('connection_id').notNull(),
  },
  (table) => [primaryKey({ columns: [table.role, table.connectionId] }), index('member_roles_connection').on(table.connectionId)],
)

export const schema = { members, memberRoles }
