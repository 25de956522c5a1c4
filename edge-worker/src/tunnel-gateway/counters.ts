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

/**
 * The counters in the gateway's storage `db`. The increment runs for most frames, so it is a
 * drizzle prepared query, its SQL built once.
 */
export class Counters {
  private readonly increment

  constructor(private readonly db: Database<typeof schema>) {
    this.increment = db
      .insert(counters)
      .values({ name: sql.placeholder('name'), value: 1 })
      .onConflictDoUpdate({ target: counters.name, set: { value: sql`${counters.value} + 1` } })
      .prepare()
  }

  /** Adds one to `name`. */
  count(name: CounterName): void {
    this.increment.run({ name })
  }

  /** Every counter counted at least once, by name. */
  read(): Record<string, number> {
    return Object.fromEntries(
      this.db
        .select()
        .from(counters)
        .all()
        .map((row) => [row.name, row.value]),
    )
  }
}
