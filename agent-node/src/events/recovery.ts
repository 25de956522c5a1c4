/**
 * Start-up recovery of events lost between a state change and its outbox write.
 *
 * A state is saved (by Credo, or by Parley's own records), then the event reporting it is
 * published; a crash in between leaves the change stored with no event (issue 6, "Outbox":
 * "otherwise immediately after, and recovered on start-up"). `recoverLostEvents` runs once at
 * start-up, before the servers open, and compares what storage says with what the outbox has.
 * It knows no kind of state itself: each owner of a kind supplies an `EventRecoverer` (connection
 * states: `didcomm/connection-events.ts`; received messages and delivery states: `messages/`),
 * composed in `event-sources.ts`.
 *
 * Changes made at or before the retention pruner's mark (`OutboxStore.prunedThrough`: the newest
 * `created_at` of a pruned event) are not looked at: their events may have been delivered and
 * pruned, and a lost one was recovered by a start-up within the retention period.
 *
 * Every recovered event goes through the publisher like any other (new id, next sequence number
 * of its connection), so a second start finds nothing to recover. The outbox is read through its
 * public paging query, once for all recoverers; the cost is one pass over the stored events.
 */
import type { AgentEvent } from '@parley/shared'
import type { Logger } from '../logging/index.ts'
import { isInternal } from './outbox/internal.ts'
import type { OutboxStore } from './outbox/store.ts'
import type { EventPublisher } from './publisher.ts'

/** Outbox rows read per page while scanning. */
const PAGE = 1000

/** One kind of event the start-up recovery restores, supplied by the module that owns the state. */
export interface EventRecoverer {
  /** Name of its count in the report (e.g. `connectionStates`). */
  readonly name: string
  /** Sees every stored agent event, oldest first (one pass over the outbox, before `recover`). */
  observe(event: AgentEvent): void
  /**
   * The events storage implies but the outbox lacks (each logged with `logger`), to publish.
   * `changedAfter` (epoch ms): only states changed after it count (the retention pruner's mark;
   * an older change's events may have been delivered and pruned).
   */
  recover(logger: Logger, changedAfter: number): Promise<AgentEvent[]>
}

/**
 * A recoverer of states reported per key (a connection's state, a message's delivery state):
 * `reported` reads the key and state an event reports (undefined: not an event of this kind);
 * `lost` lists the events to publish, given the last state reported for each key.
 */
export function lastStateRecoverer<S>(
  name: string,
  reported: (event: AgentEvent) => readonly [key: string, state: S] | undefined,
  lost: (last: ReadonlyMap<string, S>, logger: Logger, changedAfter: number) => Promise<AgentEvent[]>,
): EventRecoverer {
  const last = new Map<string, S>()
  return {
    name,
    observe(event) {
      const entry = reported(event)
      if (entry) last.set(entry[0], entry[1])
    },
    recover: (logger, changedAfter) => lost(last, logger, changedAfter),
  }
}

/** How many events each recoverer published, by its name. */
export type RecoveryReport = Record<string, number>

/** Calls `visit` with every stored agent event, oldest first, in one paged pass over the outbox. */
async function scan(outbox: OutboxStore, visit: (event: AgentEvent) => void): Promise<void> {
  let after = 0
  for (;;) {
    const page = await outbox.eventsAfterPosition(after, {}, PAGE)
    for (const published of page) if (!isInternal(published)) visit(published.event)
    if (page.length < PAGE) return
    after = page.at(-1)!.position
  }
}

/**
 * Publishes the events storage implies but the outbox lacks (see the module comment), and waits
 * until they are stored. Run once at start-up, after the Credo events are bridged and before
 * any server or the tunnel opens (so no live event races it).
 * @returns how many events each recoverer published.
 * @throws when storage or the outbox cannot be read, or a recovered event cannot be stored.
 */
export async function recoverLostEvents(
  outbox: OutboxStore,
  events: EventPublisher,
  recoverers: readonly EventRecoverer[],
  logger: Logger,
): Promise<RecoveryReport> {
  const changedAfter = (await outbox.prunedThrough())?.createdAt ?? -1
  await scan(outbox, (event) => {
    for (const recoverer of recoverers) recoverer.observe(event)
  })
  const pending: Promise<unknown>[] = []
  const report: RecoveryReport = {}
  for (const recoverer of recoverers) {
    const lost = await recoverer.recover(logger, changedAfter)
    pending.push(...lost.map((event) => events.publish(event)))
    report[recoverer.name] = lost.length
  }
  await Promise.all(pending)
  return report
}
