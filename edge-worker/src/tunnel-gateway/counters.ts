/**
 * The tunnel gateway's counters, kept in its SQLite storage so they survive hibernation and
 * restarts, and reported to agent-node in `stats` frames (agent-node exposes them on its
 * `/metrics` as `parley_worker_counter{counter="<name>"}`). Names: docs/operations.md.
 */
import { sql } from 'drizzle-orm'
import type { Database } from '../storage/index.ts'
import { counters, type schema } from './schema.ts'

/** What the gateway counts. */
export type CounterName =
  | 'agent_connections'
  | 'handshakes_refused'
  | 'events_acknowledged'
  | 'events_not_stored'
  | 'events_held_back'
  | 'frames_rejected'
  | 'commands_queued'
  | 'command_results_ok'
  | 'command_results_failed'

/** Adds one to `name`. */
export function count(db: Database<typeof schema>, name: CounterName): void {
  db.insert(counters)
    .values({ name, value: 1 })
    .onConflictDoUpdate({ target: counters.name, set: { value: sql`${counters.value} + 1` } })
    .run()
}

/** Every counter counted at least once, by name. */
export function readCounters(db: Database<typeof schema>): Record<string, number> {
  return Object.fromEntries(
    db
      .select()
      .from(counters)
      .all()
      .map((row) => [row.name, row.value]),
  )
}
