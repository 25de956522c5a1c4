/**
 * Storage of the approvals object: the requests, and one row per transition still owing its
 * side effects (tool execution, notices), committed with the transition itself.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { ApprovalStatus } from './types.ts'

export const requests = sqliteTable(
  'requests',
  {
    id: text('id').primaryKey(),
    tool: text('tool').notNull(),
    server: text('server'),
    /** The arguments as JSON text (an object). */
    argsJson: text('args').notNull(),
    requester: text('requester').notNull(),
    requesterRoles: text('requester_roles', { mode: 'json' }).$type<string[]>().notNull(),
    requesterConnection: text('requester_connection').notNull(),
    approvers: text('approvers', { mode: 'json' }).$type<string[]>().notNull(),
    status: text('status').$type<ApprovalStatus>().notNull(),
    approver: text('approver'),
    createdAt: integer('created_at').notNull(),
    resolvedAt: integer('resolved_at'),
    expiresAt: integer('expires_at').notNull(),
    /** When an approved request's tool started running: it never runs twice (at most once). */
    executionStartedAt: integer('execution_started_at'),
    result: text('result'),
  },
  (table) => [index('requests_status_expiry').on(table.status, table.expiresAt), index('requests_requester').on(table.requester)],
)

/** Transitions whose side effects are owed; `doneAt` once every party has its notice. */
export const transitions = sqliteTable(
  'transitions',
  {
    /** `<request id>:<status>`: one per transition of a request. */
    key: text('key').primaryKey(),
    requestId: text('request_id').notNull(),
    status: text('status').$type<ApprovalStatus>().notNull(),
    createdAt: integer('created_at').notNull(),
    doneAt: integer('done_at'),
  },
  (table) => [index('transitions_owed').on(table.doneAt, table.createdAt)],
)

export const schema = { requests, transitions }
