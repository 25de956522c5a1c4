/**
 * The retention pruner: deletes, off the request path, what the outbox no longer owes anyone
 * (docs/operations.md, "Retention"). Once shortly after start-up, then every hour, in batches of
 * `BATCH` rows with a turn of the event loop between batches, so requests and deliveries are never
 * held behind one long delete:
 *
 * 1. dead letters: `replayed` ones last changed more than `eventsDays` ago, `dead` ones more than
 *    `deadLettersDays` ago;
 * 2. outbox events appended more than `eventsDays` ago that every subscriber they are for has
 *    passed and no waiting dead letter names (`OutboxStore.pruneDelivered`);
 * 3. records in a final state (`records.ts`: finished credential and proof exchanges, viewed sent
 *    messages, expired short URLs) last changed more than `recordsDays` ago.
 * 4. message idempotency keys past their 24 hours (`IdempotencyStore.pruneExpired`): expired keys
 *    already count as absent, so this only frees their rows.
 *
 * A period of 0 keeps that kind forever. What is deleted is counted in the log line
 * `retention: pruned`.
 */
import { setImmediate } from 'node:timers/promises'
import type { RetentionConfig } from '../config/index.ts'
import type { OutboxStore } from '../events/outbox/store.ts'
import type { Logger } from '../logging/index.ts'
import type { IdempotencyStore } from '../messaging/idempotency.ts'
import type { RecordBatch, RecordsPruned, TerminalRecords } from './records.ts'

/** Rows deleted per statement. */
const BATCH = 500
/** Time between two runs, in milliseconds (one hour). */
const INTERVAL_MS = 60 * 60 * 1000
/** Delay of the first run after `start`, in milliseconds, so it does not compete with start-up. */
const FIRST_RUN_MS = 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000

/** A batch of the outbox's: every row it read, it deleted. */
const allRead = (deleted: number): RecordBatch => ({ read: deleted, deleted })

/**
 * What one run deleted; `records` only with a `TerminalRecords` and RECORDS_RETENTION_DAYS set,
 * `idempotencyKeys` only with an `IdempotencyStore`.
 */
export interface PruneReport {
  events: number
  deadLetters: number
  records?: RecordsPruned
  idempotencyKeys?: number
}

/** What the pruner deletes besides outbox events and dead letters. */
export interface PrunedStores {
  /** The records pruned after `recordsDays`; none: records are never pruned. */
  records?: TerminalRecords
  /** The message idempotency keys, pruned once expired; none: they are never pruned. */
  idempotencyKeys?: IdempotencyStore
}

export class RetentionPruner {
  private timer?: NodeJS.Timeout
  private running?: Promise<unknown>
  private stopped = false

  constructor(
    private readonly outbox: OutboxStore,
    private readonly retention: RetentionConfig,
    private readonly logger: Logger,
    private readonly stores: PrunedStores = {},
  ) {}

  /** Schedules the runs (timers do not keep the process alive). */
  start(): void {
    const tick = (delay: number) => {
      this.timer = setTimeout(() => {
        this.running = this.run()
          .catch((error: unknown) => this.logger.error({ err: error }, 'retention: pruning failed; trying again next hour'))
          .finally(() => {
            if (!this.stopped) tick(INTERVAL_MS)
          })
      }, delay)
      this.timer.unref()
    }
    tick(FIRST_RUN_MS)
  }

  /** Cancels the next run and waits for a run in progress (it stops after its current batch). */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  /**
   * Prunes everything due at `now` (ms since the epoch), batch by batch.
   * @returns how many rows of each kind were deleted.
   * @throws the database's error; what earlier batches deleted stays deleted.
   */
  async run(now = Date.now()): Promise<PruneReport> {
    const { eventsDays, deadLettersDays, recordsDays } = this.retention
    const report: PruneReport = { events: 0, deadLetters: 0 }
    const deadLetterCutoffs = {
      replayed: eventsDays > 0 ? now - eventsDays * DAY_MS : undefined,
      dead: deadLettersDays > 0 ? now - deadLettersDays * DAY_MS : undefined,
    }
    report.deadLetters = await this.inBatches(() => this.outbox.pruneDeadLetters(deadLetterCutoffs, BATCH).then(allRead))
    if (eventsDays > 0)
      report.events = await this.inBatches(() => this.outbox.pruneDelivered(now - eventsDays * DAY_MS, BATCH).then(allRead))
    const { records, idempotencyKeys } = this.stores
    let recordsDeleted = 0
    if (records && recordsDays > 0) {
      const pruned: RecordsPruned = { credentialExchanges: 0, presentations: 0, sentMessages: 0, shortUrls: 0 }
      for (const name of records.names) {
        pruned[name] = await this.inBatches((skip) => records.pruneBatch(name, now - recordsDays * DAY_MS, now, BATCH, skip))
        recordsDeleted += pruned[name]
      }
      report.records = pruned
    }
    if (idempotencyKeys) report.idempotencyKeys = await this.inBatches(() => idempotencyKeys.pruneExpired(now, BATCH).then(allRead))
    if (report.events + report.deadLetters + recordsDeleted + (report.idempotencyKeys ?? 0) > 0)
      this.logger.info(report, 'retention: pruned')
    return report
  }

  /**
   * Calls `prune` until it reads less than a batch (or the pruner stops), telling it how many rows
   * earlier batches read and kept; sums what it deleted.
   */
  private async inBatches(prune: (skip: number) => Promise<RecordBatch>): Promise<number> {
    let total = 0
    let kept = 0
    for (;;) {
      const { read, deleted } = await prune(kept)
      total += deleted
      kept += read - deleted
      if (read < BATCH || this.stopped) return total
      await setImmediate()
    }
  }
}
