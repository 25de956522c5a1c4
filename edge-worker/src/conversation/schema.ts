/**
 * Storage of one conversation (one DIDComm connection): its connection id, every event seen
 * (dedupe by id, sequence number, whether it was handled), the session, the record of the chat
 * (messages and tool calls) and the effect log of commands owed to the tunnel.
 */
import type { AgentEvent } from '@parley/shared/events'
import type { ApprovalNoticeEvent } from '../flows/types.ts'
import type { TunnelCommand } from '@parley/shared/tunnel'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { Session } from '../session/index.ts'

/** A single row: the connection this object serves (`ctx.id.name` is not reliable in workerd). */
export const conversation = sqliteTable('conversation', {
  connectionId: text('connection_id').primaryKey(),
})

/** What an event row holds: an agent event of the connection, or a notice of the approvals object. */
export type StoredEvent = AgentEvent | ApprovalNoticeEvent

/**
 * Every event stored, in arrival order (`position`); they are handled in the connection's `seq`
 * order. `handledAt` (ms) once the flows have handled it (or none claimed it).
 */
export const events = sqliteTable(
  'events',
  {
    position: integer('position').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    seq: integer('seq').notNull(),
    type: text('type').$type<StoredEvent['type']>().notNull(),
    body: text('body', { mode: 'json' }).$type<StoredEvent>().notNull(),
    receivedAt: integer('received_at').notNull(),
    handledAt: integer('handled_at'),
  },
  (table) => [index('events_pending').on(table.handledAt, table.position), index('events_seq').on(table.seq)],
)

/** What a `tool` record holds besides its content (the result handed to the model). */
export interface ToolRecord {
  name: string
  callId: string
  arguments: unknown
  ok: boolean
}

/**
 * The conversation record: messages of the chat and tool calls with their results; each belongs
 * to the event that produced it.
 */
export const turns = sqliteTable(
  'turns',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    eventPosition: integer('event_position')
      .notNull()
      .references(() => events.position),
    role: text('role').$type<'user' | 'assistant' | 'tool'>().notNull(),
    content: text('content').notNull(),
    tool: text('tool', { mode: 'json' }).$type<ToolRecord>(),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [index('turns_event_position').on(table.eventPosition, table.id)],
)

/** The session (one row, id 1). */
export const session = sqliteTable('session', {
  id: integer('id').primaryKey(),
  data: text('data', { mode: 'json' }).$type<Session>().notNull(),
})

/** Commands owed to the tunnel, committed with the flow result that made them; `sentAt` once the gateway has them. */
export const effects = sqliteTable(
  'effects',
  {
    position: integer('position').primaryKey({ autoIncrement: true }),
    commandId: text('command_id').notNull().unique(),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    command: text('command', { mode: 'json' }).$type<TunnelCommand>().notNull(),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
  },
  (table) => [index('effects_unsent').on(table.sentAt, table.position)],
)

export const schema = { conversation, events, turns, session, effects }
