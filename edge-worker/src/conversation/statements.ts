/**
 * The statements a conversation runs for every event, built once per object as drizzle prepared
 * queries (values as placeholders): drizzle otherwise builds each statement's SQL text again on
 * every call, a large share of the object's CPU time per chat turn (bench/README.md,
 * "chat-round-trip"). Rarer statements (the first event, a redaction) are built where they run.
 */
import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm'
import { type Database, inlineLimit } from '../storage/index.ts'
import { conversation, effects, events, type schema, session, turns } from './schema.ts'

const { placeholder } = sql

/** Prepares the per-event statements on `db`; each `.get()`, `.all()` or `.run()` with the named values. */
export function conversationStatements(db: Database<typeof schema>) {
  return {
    /** The connection this object serves (no row before the first event). */
    owner: db.select().from(conversation).prepare(),
    /** The `seq` of the event stored last. */
    latestSeq: db.select({ seq: events.seq }).from(events).orderBy(desc(events.position)).limit(inlineLimit(1)).prepare(),
    /** Stores an event (`id`, `seq`, `type`, `body`, `receivedAt`); returns its row, none when the id is known. */
    insertEvent: db
      .insert(events)
      .values({
        id: placeholder('id'),
        seq: placeholder('seq'),
        type: placeholder('type'),
        body: placeholder('body'),
        receivedAt: placeholder('receivedAt'),
      })
      .onConflictDoNothing()
      .returning()
      .prepare(),
    /** The unhandled event to handle next: lowest `seq`, then arrival. */
    nextEvent: db
      .select()
      .from(events)
      .where(isNull(events.handledAt))
      .orderBy(asc(events.seq), asc(events.position))
      .limit(inlineLimit(1))
      .prepare(),
    /** Marks the event at `position` handled at `handledAt`. */
    markHandled: db
      .update(events)
      .set({ handledAt: sql`${placeholder('handledAt')}` })
      .where(eq(events.position, placeholder('position')))
      .prepare(),
    /** Adds a message (`eventPosition`, `role`, `content`, `createdAt`) to the conversation record. */
    insertMessage: db
      .insert(turns)
      .values({
        eventPosition: placeholder('eventPosition'),
        role: placeholder('role'),
        content: placeholder('content'),
        createdAt: placeholder('createdAt'),
      })
      .prepare(),
    /** Adds a tool call (`eventPosition`, `content`: its result, `tool`, `createdAt`) to the conversation record. */
    insertToolCall: db
      .insert(turns)
      .values({
        eventPosition: placeholder('eventPosition'),
        role: 'tool',
        content: placeholder('content'),
        tool: placeholder('tool'),
        createdAt: placeholder('createdAt'),
      })
      .prepare(),
    /** The session row. */
    session: db.select().from(session).prepare(),
    /** Replaces the session with `data`. */
    saveSession: db
      .insert(session)
      .values({ id: 1, data: placeholder('data') })
      .onConflictDoUpdate({ target: session.id, set: { data: sql`excluded.data` } })
      .prepare(),
    /** Logs a command owed to the tunnel (`commandId`, `idempotencyKey`, `command`, `createdAt`); a known key is kept. */
    insertEffect: db
      .insert(effects)
      .values({
        commandId: placeholder('commandId'),
        idempotencyKey: placeholder('idempotencyKey'),
        command: placeholder('command'),
        createdAt: placeholder('createdAt'),
      })
      .onConflictDoNothing()
      .prepare(),
    /** Commands not yet handed to the tunnel gateway, in order. */
    unsentEffects: db.select().from(effects).where(isNull(effects.sentAt)).orderBy(asc(effects.position)).prepare(),
    /** Marks the effect at `position` sent at `sentAt` (once). */
    markSent: db
      .update(effects)
      .set({ sentAt: sql`${placeholder('sentAt')}` })
      .where(and(eq(effects.position, placeholder('position')), isNull(effects.sentAt)))
      .prepare(),
  }
}

/** The prepared statements of one conversation. */
export type ConversationStatements = ReturnType<typeof conversationStatements>
