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
 * Only a window is compared, not the whole history (issue 16, "Start-up and size"): the states
 * changed after the recovery checkpoint (`RecoveryCheckpoint`, table `event_recovery_checkpoint`)
 * and the events appended after its position. A state changed inside the window whose event is
 * not among those is looked up in its connection's older events (`newestEventOf`), so a record
 * touched without a new state (Credo saves metadata too) is not reported twice. The checkpoint
 * moves at the end of each start-up recovery (nothing else runs then) and, while the agent runs
 * on a database no other instance writes (SQLite; `app.ts`), every `CHECKPOINT_INTERVAL_MS` to where it stood one interval earlier, once every event
 * published meanwhile is stored: a state saved a whole interval ago has had its event published
 * by then (Credo emits right after the save resolves), unless the process died, which is what
 * recovery is for. A failed outbox write (`EventPublisher.failures`) stops the checkpoint for
 * the rest of the process's life, so the next start looks at everything since. Without a
 * checkpoint (a database from before it) the window is the whole history, once.
 *
 * Changes made at or before the retention pruner's mark (`OutboxStore.prunedThrough`: the newest
 * `created_at` of a pruned event) are not looked at either: their events may have been delivered
 * and pruned, and a lost one was recovered by a start-up within the retention period.
 *
 * Every recovered event goes through the publisher like any other (new id, next sequence number
 * of its connection), so a second start finds nothing to recover.
 */
import type { AgentEvent } from '@parley/shared'
import type { Logger } from '../logging/index.ts'
import { isInternal } from './outbox/internal.ts'
import type { OutboxStore, PublishedEvent, RecoveryCheckpoint } from './outbox/store.ts'
import type { EventPublisher } from './publisher.ts'

/** Outbox rows read per page while scanning the window. */
const PAGE = 1000
/** The checkpoint's row (one agent-node per database: the data folder's lock, docs/durability.md). */
const CHECKPOINT_ID = 'agent-node'
/** How often the checkpoint moves while the agent runs, and how far behind it stays, ms. */
export const CHECKPOINT_INTERVAL_MS = 60_000
/** Taken off every time compared with a checkpoint (a clock stepped back, a slow save), ms. */
const CLOCK_MARGIN_MS = 60_000

/** What one start-up recovery compares: states changed after a time, events after a position. */
export interface RecoveryWindow {
  /** States changed after this (ms since the epoch) are compared with the outbox. */
  readonly changedAfter: number
  /** Every event after this outbox position was shown to `observe`. */
  readonly afterPosition: number
  /**
   * The newest event of `topic` in `connectionId` that `matches`, appended no earlier than
   * `createdAt` (ms since the epoch, the record's creation: none of its events is older): the last
   * report of a state whose event is not in the window.
   */
  newestEventOf(
    connectionId: string,
    topic: AgentEvent['type'],
    createdAt: number,
    matches: (event: AgentEvent) => boolean,
  ): Promise<PublishedEvent | undefined>
}

/** One kind of event the start-up recovery restores, supplied by the module that owns the state. */
export interface EventRecoverer {
  /** Name of its count in the report (e.g. `connectionStates`). */
  readonly name: string
  /** Sees every stored agent event after the window's position, oldest first (before `recover`). */
  observe(event: AgentEvent): void
  /** The events storage implies but the outbox lacks, among states changed in `window` (each logged with `logger`), to publish. */
  recover(window: RecoveryWindow, logger: Logger): Promise<AgentEvent[]>
}

/** A state as storage holds it now, for `lastStateRecoverer`. */
export interface StoredState<S> {
  /** What the state is of (a connection id, a message id). */
  key: string
  connectionId: string
  state: S
  /** When its record was created, ms since the epoch: no event of it is older. */
  createdAt: number
  /** The event reporting `state`, published when the outbox's last report of `key` differs. */
  event: AgentEvent
}

/**
 * A recoverer of states reported per key (a connection's state, a message's delivery state, a
 * received message): `reported` reads the key and state an event of `topic` reports (undefined:
 * not one of this kind); `stored` lists the states changed after a time (ms since the epoch).
 * A stored state whose last report differs gets its event; one never reported at all gets it
 * only with `publishUnreported`.
 */
export function lastStateRecoverer<S>(options: {
  name: string
  topic: AgentEvent['type']
  reported: (event: AgentEvent) => readonly [key: string, state: S] | undefined
  stored: (changedAfter: number) => Promise<StoredState<S>[]>
  publishUnreported: boolean
}): EventRecoverer {
  const { topic, reported } = options
  const last = new Map<string, S>()
  return {
    name: options.name,
    observe(event) {
      const entry = reported(event)
      if (entry) last.set(entry[0], entry[1])
    },
    async recover(window, logger) {
      const lost: AgentEvent[] = []
      for (const stored of await options.stored(window.changedAfter)) {
        const lastReported = last.has(stored.key)
          ? last.get(stored.key)
          : await window
              .newestEventOf(stored.connectionId, topic, stored.createdAt, (event) => reported(event)?.[0] === stored.key)
              .then((older) => older && reported(older.event)?.[1])
        if (lastReported === stored.state || (lastReported === undefined && !options.publishUnreported)) continue
        logger.warn({ connectionId: stored.connectionId, key: stored.key, state: stored.state, lastReported }, `recovering a lost ${topic}`)
        lost.push(stored.event)
        last.set(stored.key, stored.state)
      }
      return lost
    },
  }
}

/** How many events each recoverer published, by its name, and the window compared. */
export interface RecoveryReport {
  recovered: Record<string, number>
  /** States changed after this time (ms since the epoch) were compared; -1: every state. */
  changedAfter: number
  /** Outbox events read (those after the checkpoint's position). */
  eventsRead: number
}

/** Calls `visit` with every stored agent event after `after`, oldest first; returns how many rows it read. */
async function scan(outbox: OutboxStore, after: number, visit: (event: AgentEvent) => void): Promise<number> {
  let read = 0
  for (;;) {
    const page = await outbox.eventsAfterPosition(after, {}, PAGE)
    read += page.length
    for (const published of page) if (!isInternal(published)) visit(published.event)
    if (page.length < PAGE) return read
    after = page.at(-1)!.position
  }
}

/**
 * Publishes the events storage implies but the outbox lacks (see the module comment), waits
 * until they are stored, and moves the checkpoint to the moment it started. Run once at
 * start-up, after the Credo events are bridged and before any server or the tunnel opens (so no
 * live event races it).
 * @returns how many events each recoverer published, and the window.
 * @throws when storage or the outbox cannot be read, or a recovered event cannot be stored.
 */
export async function recoverLostEvents(
  outbox: OutboxStore,
  events: EventPublisher,
  recoverers: readonly EventRecoverer[],
  logger: Logger,
): Promise<RecoveryReport> {
  const now: RecoveryCheckpoint = { position: await outbox.newestPosition(), through: Date.now() }
  const checkpoint = await outbox.recoveryCheckpoint(CHECKPOINT_ID)
  const prunedThrough = (await outbox.prunedThrough())?.createdAt ?? -1
  const window: RecoveryWindow = {
    changedAfter: Math.max(prunedThrough, checkpoint ? checkpoint.through - CLOCK_MARGIN_MS : -1),
    afterPosition: checkpoint?.position ?? 0,
    newestEventOf: (connectionId, topic, createdAt, matches) =>
      outbox.newestEventOf(connectionId, topic, createdAt - CLOCK_MARGIN_MS, matches),
  }
  const eventsRead = await scan(outbox, window.afterPosition, (event) => {
    for (const recoverer of recoverers) recoverer.observe(event)
  })
  const pending: Promise<unknown>[] = []
  const recovered: Record<string, number> = {}
  for (const recoverer of recoverers) {
    const lost = await recoverer.recover(window, logger)
    pending.push(...lost.map((event) => events.publish(event)))
    recovered[recoverer.name] = lost.length
  }
  await Promise.all(pending)
  await outbox.saveRecoveryCheckpoint(CHECKPOINT_ID, now)
  return { recovered, changedAfter: window.changedAfter, eventsRead }
}

/**
 * Moves the recovery checkpoint while the agent runs (see the module comment): every
 * `intervalMs` it writes the place it noted one interval before, once the events published
 * meanwhile are stored, and notes the current place; after any failed outbox write, never again.
 */
export class RecoveryCheckpointer {
  private noted?: RecoveryCheckpoint
  private timer?: NodeJS.Timeout
  private running: Promise<void> = Promise.resolve()
  private stopped = false

  constructor(
    private readonly outbox: OutboxStore,
    private readonly events: EventPublisher,
    private readonly logger: Logger,
    private readonly intervalMs = CHECKPOINT_INTERVAL_MS,
  ) {}

  /** Notes the current place and starts the timer. */
  start(): void {
    const tick = () => {
      this.timer = setTimeout(() => {
        this.running = this.move()
          .catch((error: unknown) => this.logger.warn({ err: error }, 'the recovery checkpoint could not be moved'))
          .finally(() => {
            if (!this.stopped) tick()
          })
      }, this.intervalMs)
    }
    this.running = this.move().catch((error: unknown) => this.logger.warn({ err: error }, 'the recovery checkpoint could not be noted'))
    tick()
  }

  /** Stops the timer and waits for a move under way. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  private async move(): Promise<void> {
    await this.events.settled()
    if (this.events.failures > 0) return // the next start looks at everything since the last checkpoint
    if (this.noted) await this.outbox.saveRecoveryCheckpoint(CHECKPOINT_ID, this.noted)
    const position = await this.outbox.newestPosition()
    this.noted = { position, through: Date.now() }
  }
}
