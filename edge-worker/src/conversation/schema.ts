/**
 * Storage of one conversation (one DIDComm connection): its connection id, every event seen
 * (dedupe by id, sequence number, the action still owed), and the turns of the chat.
 */
import type { AgentEvent } from '@parley/shared/events'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** What an event asks of the conversation once stored. */
export type EventAction = 'greet' | 'reply'

/** A single row: the connection this object serves (`ctx.id.name` is not reliable in workerd). */
export const conversation = sqliteTable('conversation', {
  connectionId: text('connection_id').primaryKey(),
})

/**
 * Every event stored, in arrival order (`position`); they are applied in the connection's `seq`
 * order (the alarm and a reply's history order by it).
 * `action` is set when the event needs a reply; `handledAt` (ms) once that is done.
 */
export const events = sqliteTable('events', {
  position: integer('position').primaryKey({ autoIncrement: true }),
  id: text('id').notNull().unique(),
  seq: integer('seq').notNull(),
  type: text('type').$type<AgentEvent['type']>().notNull(),
  body: text('body', { mode: 'json' }).$type<AgentEvent>().notNull(),
  action: text('action').$type<EventAction>(),
  receivedAt: integer('received_at').notNull(),
  handledAt: integer('handled_at'),
}, (table) => [index('events_pending').on(table.handledAt, table.position)])

/** Messages of the chat; each belongs to the event that produced it (the user's message, or the one answered). */
export const turns = sqliteTable('turns', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  eventPosition: integer('event_position').notNull().references(() => events.position),
  role: text('role').$type<'user' | 'assistant'>().notNull(),
  content: text('content').notNull(),
  createdAt: integer('created_at').notNull(),
}, (table) => [index('turns_event_position').on(table.eventPosition, table.id)])

export const schema = { conversation, events, turns }
