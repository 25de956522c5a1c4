/**
 * The tunnel gateway's counters, kept in its SQLite storage so they survive hibernation and
 * restarts, and reported to agent-node in `stats` frames (agent-node exposes them on its
 * `/metrics` as `parley_worker_counter{counter="<name>"}`). Names: docs/operations.md.
 *
 * Counting is in memory; what was counted is written later, all names in one commit, with the
 * gateway's other writes that may wait (`write-behind.ts`). Written at each count, the
 * acknowledged event alone was a storage commit of its own per chat turn. An object that dies
 * unexpectedly loses at most that last stretch of counts, as a process's in-memory metrics do on
 * a crash: the counters still only grow, so Prometheus' `rate()` and `increase()` read them as
 * before.
 */
import { sql } from 'drizzle-orm'
import type { Database } from '../storage/index.ts'
import type { WriteBehind } from './write-behind.ts'
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
 * The counters in the gateway's storage `db`, counted in memory and written by `writeBehind`.
 * The write runs for every name counted since the last one, so it is a drizzle prepared query,
 * its SQL built once.
 */
export class Counters {
  private readonly add
  /** Counts not written yet, by name. */
  private readonly pending = new Map<CounterName, number>()

  constructor(
    private readonly db: Database<typeof schema>,
    private readonly writeBehind: WriteBehind,
  ) {
    this.add = db
      .insert(counters)
      .values({ name: sql.placeholder('name'), value: sql.placeholder('by') })
      .onConflictDoUpdate({ target: counters.name, set: { value: sql`${counters.value} + excluded.value` } })
      .prepare()
    writeBehind.register(() => this.flush())
  }

  /** Adds one to `name`; written with the gateway's next write-behind flush. */
  count(name: CounterName): void {
    this.pending.set(name, (this.pending.get(name) ?? 0) + 1)
    this.writeBehind.soon()
  }

  /** Writes every count not written yet (one commit: the statements run in one synchronous stretch). */
  flush(): void {
    for (const [name, by] of this.pending) this.add.run({ name, by })
    this.pending.clear()
  }

  /** Every counter counted at least once, by name: the stored values plus the counts not written yet. */
  read(): Record<string, number> {
    const values: Record<string, number> = Object.fromEntries(
      this.db
        .select()
        .from(counters)
        .all()
        .map((row) => [row.name, row.value]),
    )
    for (const [name, by] of this.pending) values[name] = (values[name] ?? 0) + by
    return values
  }
}
