/**
 * Retention of a conversation's record (Worker var `CONVERSATION_RETENTION_DAYS`): events handled
 * longer ago than the retention, with their turns (the messages and tool calls they produced),
 * and commands handed to the tunnel gateway longer ago, are deleted; so a Durable Object's
 * storage stops growing with the age of its chat. Unset or `0`: kept forever (the default).
 *
 * Kept whatever their age: events not handled yet, commands not sent yet, the session, the
 * connection id, and the newest event (its `seq` is what a late event is compared with). An event
 * id forgotten here is no longer recognised as a duplicate: a retention at least as long as
 * agent-node's `EVENTS_RETENTION_DAYS` keeps every event agent-node could still deliver again.
 */
import { sql } from 'drizzle-orm'
import type { Env } from '../env.ts'
import type { Logger } from '../logging/index.ts'
import type { Database } from '../storage/index.ts'
import type { schema } from './schema.ts'

const DAY_MS = 86_400_000

/** Events (with their turns) and commands deleted per table per pass at most; a pass that hit it comes back at once. */
export const PRUNE_BATCH = 500

/**
 * The retention in ms of `CONVERSATION_RETENTION_DAYS` (days, decimals allowed), or undefined to
 * keep the record forever (unset, empty or `0`). Anything else but a number of days ≥ 0 is
 * logged as a warning naming the variable, and the record is kept forever.
 */
export function retentionMs(days: unknown, log: Logger): number | undefined {
  if (days === undefined || days === '' || days === null) return undefined
  const value = typeof days === 'number' ? days : Number(String(days).trim())
  if (!Number.isFinite(value) || value < 0) {
    log.warn('CONVERSATION_RETENTION_DAYS is not a number of days >= 0; conversation records are kept forever', {
      value: String(days),
    })
    return undefined
  }
  return value === 0 ? undefined : value * DAY_MS
}

const retentions = new WeakMap<object, number | undefined>()

/**
 * `retentionMs` of `env.CONVERSATION_RETENTION_DAYS`, worked out once per `env` object (per isolate
 * in practice, as the agent pack is), so a bad value is logged once on `log`, not by every
 * conversation object the isolate starts.
 */
export function conversationRetention(env: Pick<Env, 'CONVERSATION_RETENTION_DAYS'>, log: Logger): number | undefined {
  if (!retentions.has(env)) retentions.set(env, retentionMs(env.CONVERSATION_RETENTION_DAYS, log))
  return retentions.get(env)
}

/** What one `pruneRecord` deleted; `more` when a table had `PRUNE_BATCH` rows due, so more may be. */
export interface Pruned {
  events: number
  turns: number
  effects: number
  more: boolean
}

/** The events due for deletion before `cutoff` (ms): handled before it, not the newest; oldest first. */
const dueEvents = (cutoff: number) => sql`SELECT position FROM events
  WHERE handled_at IS NOT NULL AND handled_at < ${cutoff} AND position < (SELECT MAX(position) FROM events)
  ORDER BY position LIMIT ${PRUNE_BATCH}`

/** The commands due for deletion before `cutoff` (ms): sent, logged before it; oldest first. */
const dueEffects = (cutoff: number) => sql`SELECT position FROM effects
  WHERE sent_at IS NOT NULL AND created_at < ${cutoff} ORDER BY position LIMIT ${PRUNE_BATCH}`

/**
 * Deletes, in one transaction, up to `PRUNE_BATCH` events handled before `cutoff` (ms) with their
 * turns, and up to `PRUNE_BATCH` commands sent whose effect was logged before it.
 */
export function pruneRecord(db: Database<typeof schema>, cutoff: number): Pruned {
  return db.transaction((tx) => {
    // the turns first: they reference their event
    const turns = tx.all(sql`DELETE FROM turns WHERE event_position IN (${dueEvents(cutoff)}) RETURNING id`).length
    const events = tx.all(sql`DELETE FROM events WHERE position IN (${dueEvents(cutoff)}) RETURNING position`).length
    const effects = tx.all(sql`DELETE FROM effects WHERE position IN (${dueEffects(cutoff)}) RETURNING position`).length
    return { events, turns, effects, more: events === PRUNE_BATCH || effects === PRUNE_BATCH }
  })
}

/**
 * When the oldest row `pruneRecord` would delete falls due (ms): the time its event was handled or
 * its command logged, plus `retention` (ms); undefined when the record holds none. Read in
 * arrival order (the primary keys), so one row each: an event handled late may fall due a
 * little after this time, and then goes at the following pass.
 */
export function nextPruneAt(db: Database<typeof schema>, retention: number): number | undefined {
  const [event] = db.all<{ at: number }>(sql`SELECT handled_at AS at FROM events
    WHERE handled_at IS NOT NULL AND position < (SELECT MAX(position) FROM events) ORDER BY position LIMIT 1`)
  const [effect] = db.all<{ at: number }>(sql`SELECT created_at AS at FROM effects WHERE sent_at IS NOT NULL ORDER BY position LIMIT 1`)
  const oldest = Math.min(event?.at ?? Number.POSITIVE_INFINITY, effect?.at ?? Number.POSITIVE_INFINITY)
  return Number.isFinite(oldest) ? oldest + retention : undefined
}
