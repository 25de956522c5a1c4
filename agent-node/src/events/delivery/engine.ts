/**
 * The delivery engine: feeds every subscriber (`subscriber.ts`) from the outbox.
 *
 * Work is split into lanes, one per (subscriber, connection). A lane delivers its connection's
 * events in `seq` order: the next event waits until the previous one was acknowledged, skipped by
 * the subscriber's filter, or dead-lettered. A subscriber whose receiver keeps a connection's
 * events in order (the tunnel) may be sent up to `maxInFlight` of them before the first answer
 * (`window.ts`); their answers are still taken in order. Lanes run concurrently, so a
 * slow or failing connection (or subscriber) never holds up another. Everything a lane knows is
 * in the database (cursor, attempts, next attempt time, dead letters); in memory there are
 * running lanes, retry timers (rebuilt at start-up from `connectionsWithWork`) and a cache of
 * idle lanes' cursors (`MAX_IDLE_LANES`), which only this engine moves.
 *
 * A dead letter marked for replay (`replay`) is delivered before the lane's next event.
 *
 * Cursor moves after acknowledgements are written in batches (one statement for every lane's
 * moves of a 20 ms window) rather than one transaction per event: the next event does not wait for
 * the write. A crash before the write only means those events are delivered again, in order,
 * with their ids, which receivers drop as duplicates. Moves past events a subscriber does not take
 * wait up to a second (they are only skipped again after a crash). Retries and dead letters are
 * written at once.
 */
import { setMaxListeners } from 'node:events'
import type { Logger } from '../../logging/index.ts'
import type { Cursor, DeadLetter, OutboxStore, PublishedEvent } from '../outbox/store.ts'
import { retryDelay } from './retry.ts'
import { receives, retryOutcome, type DeliveryOutcome, type Subscriber } from './subscriber.ts'
import { SendWindow } from './window.ts'

/** How many events a lane reads from the outbox per query. */
const LANE_BATCH = 100
/** Most appended events a lane keeps in memory; beyond, it reads them from the outbox. */
const MAX_BUFFERED = 1_000
/**
 * How long cursor moves gather before they are written together, in milliseconds. SQLite
 * commits block the event loop (and fsync); one commit per window instead of per event keeps
 * throughput up. A crash loses at most this window's moves: those events are re-delivered.
 */
const MOVES_WINDOW_MS = 20
/**
 * The same for moves past events the subscriber does not take (its topic filter): losing them
 * in a crash only means skipping those events again, so they wait longer and usually ride along
 * with the next acknowledgement's write instead of costing a commit of their own.
 */
const SKIPPED_MOVES_WINDOW_MS = 1_000
/**
 * Idle lanes kept in memory with their cursor. A connection's lanes see an event every few
 * messages (a subscriber whose topics it skips too): re-reading the cursor and the replays for
 * each event cost three queries per event and subscriber. Beyond this many lanes the least
 * recently used idle ones are dropped (a few hundred bytes each).
 */
const MAX_IDLE_LANES = 10_000
/** Wait before a lane runs again after an unexpected error (a database failure), in milliseconds. */
const LANE_ERROR_DELAY_MS = 1_000

interface Registered {
  subscriber: Subscriber
  startPosition: number
  /** Aborts this subscriber's attempts in flight (removal, shutdown). */
  abort: AbortController
}

interface Lane {
  /** The lane's cursor while the lane exists (read from the database when it is created). */
  cursor?: Cursor
  /** Dead letters of this lane may be waiting for replay: look them up on the next run. */
  replays: boolean
  /** Events appended since the lane last read the outbox, handed over by `notify`. */
  buffer: PublishedEvent[]
  /** The lane has read the outbox to its end once: from then on `buffer` holds everything new. */
  synced: boolean
  running?: Promise<void>
  /** Work arrived while running: run again before going idle. */
  again: boolean
  timer?: NodeJS.Timeout
}

/**
 * What happened to one attempt, reported to observers once it is recorded in the database:
 * `acknowledged`, `retry-scheduled` (at `nextAttemptAt`, ms since the epoch), `dead-lettered`,
 * `replayed` (a dead letter acknowledged on replay).
 */
export interface DeliveryRecord {
  subscriber: string
  event: PublishedEvent
  status: 'acknowledged' | 'retry-scheduled' | 'dead-lettered' | 'replayed'
  attempts: number
  error?: string
  nextAttemptAt?: number
}

/** The map key of the lane of `subscriber` in `connectionId`. */
function laneKey(subscriber: string, connectionId: string): string {
  return `${subscriber}\n${connectionId}`
}

/** Outcome of one event in a lane: done (next event) or waiting (a retry timer is set, or stopping). */
type Step = 'done' | 'waiting'

export class DeliveryEngine {
  private readonly registered = new Map<string, Registered>()
  private readonly lanes = new Map<string, Lane>()
  private readonly observers = new Set<(record: DeliveryRecord) => void>()
  /** Cursor moves not written yet, by lane key. */
  private readonly pendingMoves = new Map<string, { subscriber: string; connectionId: string; seq: number }>()
  /** The timer that writes `pendingMoves`, and when it fires (ms since the epoch). */
  private movesTimer?: NodeJS.Timeout
  private movesDueAt = 0
  private movesWritten: Promise<void> = Promise.resolve()
  private stopped = false

  constructor(
    private readonly store: OutboxStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Starts delivering to `subscriber`: registers it (first time: from the newest event on) and
   * resumes every lane it has work in.
   * @throws when a subscriber of the same name is already running.
   */
  async addSubscriber(subscriber: Subscriber): Promise<void> {
    if (this.registered.has(subscriber.name)) throw new Error(`subscriber '${subscriber.name}' is already running`)
    const startPosition = await this.store.addSubscriber(subscriber.name)
    const abort = new AbortController()
    setMaxListeners(0, abort.signal) // every lane's attempt in flight listens to it
    this.registered.set(subscriber.name, { subscriber, startPosition, abort })
    for (const connectionId of await this.store.connectionsWithWork(subscriber.name)) this.wake(subscriber.name, connectionId, true)
  }

  /**
   * Stops delivering to the subscriber `name` and waits for its lanes to stop; an attempt in
   * flight is aborted and will be made again if the subscriber is added back. `forget` also
   * deletes its cursors and dead letters.
   */
  async removeSubscriber(name: string, options: { forget?: boolean } = {}): Promise<void> {
    const entry = this.registered.get(name)
    if (entry) {
      this.registered.delete(name)
      entry.abort.abort()
      await this.settleLanes((key) => key.startsWith(`${name}\n`))
    }
    if (options.forget) await this.store.removeSubscriber(name)
  }

  /**
   * Calls `observer` after each recorded attempt (monitoring, tests). It must not throw.
   * @returns a function that removes it.
   */
  observe(observer: (record: DeliveryRecord) => void): () => void {
    this.observers.add(observer)
    return () => this.observers.delete(observer)
  }

  /** Names of the running subscribers. */
  get subscriberNames(): string[] {
    return [...this.registered.keys()]
  }

  /**
   * Tells the engine that `events` were appended (in `seq` order per connection); wakes their
   * lanes in every subscriber and hands the events over, so a lane that has read the outbox to
   * its end need not read it again.
   */
  notify(events: readonly PublishedEvent[]): void {
    const byConnection = new Map<string, PublishedEvent[]>()
    for (const event of events) byConnection.set(event.connectionId, [...(byConnection.get(event.connectionId) ?? []), event])
    for (const name of this.registered.keys()) {
      for (const [connectionId, appended] of byConnection) {
        // Hand the events over before waking: a kept lane may drain its buffer at once.
        const lane = this.lanes.get(laneKey(name, connectionId))
        if (lane && lane.buffer.length + appended.length > MAX_BUFFERED) {
          lane.buffer = []
          lane.synced = false
        } else if (lane) {
          lane.buffer.push(...appended)
        }
        this.wake(name, connectionId)
      }
    }
  }

  /**
   * Makes the lanes of `connectionIds` in every running subscriber read the outbox again (events
   * another instance appended: they were not handed over by `notify`), replays included; without
   * `connectionIds`, every lane the database says has work (the periodic check for what a lost
   * notification hid, `cluster/`).
   */
  async poke(connectionIds?: readonly string[]): Promise<void> {
    for (const name of [...this.registered.keys()]) {
      for (const connectionId of connectionIds ?? (await this.store.connectionsWithWork(name))) {
        const lane = this.lanes.get(laneKey(name, connectionId))
        if (lane) lane.synced = false
        this.wake(name, connectionId, true)
      }
    }
  }

  /**
   * Marks the dead letter `id` for replay and wakes its lane: it is delivered again before the
   * lane's next event (to a running subscriber; otherwise when that subscriber is added).
   * @returns the dead letter, or undefined if there is none with that id.
   */
  async replay(id: string): Promise<DeadLetter | undefined> {
    const letter = await this.store.requestReplay(id)
    if (letter) this.wake(letter.subscriber, letter.connectionId, true)
    return letter
  }

  /** Stops every lane: attempts in flight are aborted (and made again after the next start). */
  async stop(): Promise<void> {
    this.stopped = true
    for (const entry of this.registered.values()) entry.abort.abort()
    await this.settleLanes(() => true)
    clearTimeout(this.movesTimer)
    await this.writeMoves()
  }

  /**
   * Records that the lane's cursor moves to `seq`; written with the next batch, at the latest
   * `windowMs` from now.
   */
  private move(subscriber: string, connectionId: string, seq: number, windowMs = MOVES_WINDOW_MS): void {
    this.pendingMoves.set(laneKey(subscriber, connectionId), { subscriber, connectionId, seq })
    const dueAt = Date.now() + windowMs
    if (this.movesTimer && this.movesDueAt <= dueAt) return
    clearTimeout(this.movesTimer)
    this.movesDueAt = dueAt
    this.movesTimer = setTimeout(() => {
      this.movesTimer = undefined
      void this.writeMoves()
    }, windowMs)
  }

  /**
   * Writes the pending cursor moves in one statement, after any write under way. A move stays
   * in `pendingMoves` (where lanes read it) until it is in the database.
   */
  private writeMoves(): Promise<void> {
    this.movesWritten = this.movesWritten.then(async () => {
      const moves = [...this.pendingMoves.entries()]
      if (moves.length === 0) return
      try {
        await this.store.advance(moves.map(([, move]) => move))
      } catch (error) {
        // Lanes re-read their cursors and deliver those events again; receivers drop the duplicates.
        this.logger.error({ err: error }, 'cursor moves could not be written')
      }
      for (const [key, move] of moves) if (this.pendingMoves.get(key) === move) this.pendingMoves.delete(key)
    })
    return this.movesWritten
  }

  private async settleLanes(matches: (key: string) => boolean): Promise<void> {
    const running: Promise<void>[] = []
    for (const [key, lane] of this.lanes) {
      if (!matches(key)) continue
      clearTimeout(lane.timer)
      lane.timer = undefined
      if (lane.running) running.push(lane.running)
      else this.lanes.delete(key)
    }
    await Promise.all(running)
  }

  /** Makes the lane run (again) now, unless it waits for a retry; `replays`: it may have replays owed. */
  private wake(name: string, connectionId: string, replays = false): void {
    if (this.stopped || !this.registered.has(name)) return
    const key = laneKey(name, connectionId)
    let lane = this.lanes.get(key)
    if (!lane) {
      lane = { again: false, replays: true, buffer: [], synced: false } // a new lane reads the database once
      this.lanes.set(key, lane)
    }
    if (replays) lane.replays = true
    if (lane.running) lane.again = true
    else if (!lane.timer) this.run(key, lane, name, connectionId)
  }

  private run(key: string, lane: Lane, name: string, connectionId: string): void {
    const running: Promise<void> = this.runLane(key, lane, name, connectionId).finally(() => {
      if (lane.running === running) lane.running = undefined
      if (lane.timer) return
      if (this.stopped || !this.registered.has(name)) this.lanes.delete(key)
      else if (lane.again) this.run(key, lane, name, connectionId)
      else this.keepIdle(key, lane)
    })
    lane.running = running
  }

  /**
   * Keeps an idle lane (its cursor, read to the outbox's end) as the most recently used, so the
   * connection's next event needs no database read; drops the least recently used idle lanes
   * beyond `MAX_IDLE_LANES` (they read their cursor again when woken).
   */
  private keepIdle(key: string, lane: Lane): void {
    this.lanes.delete(key)
    this.lanes.set(key, lane)
    if (this.lanes.size <= MAX_IDLE_LANES) return
    for (const [oldKey, old] of this.lanes) {
      if (this.lanes.size <= MAX_IDLE_LANES) break
      if (!old.running && !old.timer) this.lanes.delete(oldKey)
    }
  }

  private async runLane(key: string, lane: Lane, name: string, connectionId: string): Promise<void> {
    try {
      do {
        lane.again = false
        const entry = this.registered.get(name)
        if (!entry || this.stopped) return
        if ((await this.drain(entry, connectionId, lane)) === 'waiting') return
      } while (lane.again)
    } catch (error) {
      this.logger.error({ err: error, subscriber: name, connectionId }, 'event delivery lane failed; retrying')
      Object.assign(lane, { cursor: undefined, replays: true, buffer: [], synced: false }) // re-read from the database
      this.schedule(lane, key, name, connectionId, LANE_ERROR_DELAY_MS)
    }
  }

  private schedule(lane: Lane, key: string, name: string, connectionId: string, delayMs: number): void {
    if (this.stopped || !this.registered.has(name)) return
    lane.timer = setTimeout(() => {
      lane.timer = undefined
      if (!lane.running) this.run(key, lane, name, connectionId)
    }, delayMs)
  }

  /** Delivers the lane's replays, then its events, until none is left or one must wait. */
  private async drain(entry: Registered, connectionId: string, lane: Lane): Promise<Step> {
    const { subscriber, startPosition } = entry
    let cursor = lane.cursor
    if (!cursor) {
      cursor = await this.store.cursor(subscriber.name, connectionId, startPosition)
      const moved = this.pendingMoves.get(laneKey(subscriber.name, connectionId))
      if (moved && moved.seq > cursor.deliveredSeq)
        Object.assign(cursor, { deliveredSeq: moved.seq, attempts: 0, nextAttemptAt: 0, lastError: null })
      lane.cursor = cursor
    }
    if (lane.replays) {
      lane.replays = false
      for (const letter of await this.store.replaysOf(subscriber.name, connectionId)) {
        const event = await this.store.event(letter.eventId)
        if (!event) continue
        if ((await this.attempt(entry, lane, cursor, event, letter)) === 'waiting') {
          lane.replays = true
          return 'waiting'
        }
      }
    }
    const takes = (event: PublishedEvent) => receives(subscriber, event)
    const window = new SendWindow(
      subscriber.maxInFlight ?? 1,
      (event) => this.deliverNow(subscriber, event, entry.abort.signal),
      () => this.store.syncToDisk(),
    )
    for (;;) {
      const batch = this.takeBuffered(lane, cursor) ?? (await this.readOutbox(lane, connectionId, cursor, startPosition))
      if (batch.length === 0) return 'done'
      window.begin(batch)
      for (const [index, event] of batch.entries()) {
        if (!takes(event)) {
          this.move(subscriber.name, connectionId, event.seq, SKIPPED_MOVES_WINDOW_MS)
        } else if ((await this.attempt(entry, lane, cursor, event, undefined, () => window.take(index, takes))) === 'waiting') {
          lane.synced = false // the rest of this batch is not kept: read it again next time
          return 'waiting'
        }
        cursor.deliveredSeq = event.seq
      }
    }
  }

  /**
   * The lane's buffered events after its cursor, if they continue it without a gap and the lane
   * is synced (an empty list: nothing new); undefined when the outbox must be read.
   */
  private takeBuffered(lane: Lane, cursor: Cursor): PublishedEvent[] | undefined {
    const next = lane.buffer.filter((e) => e.seq > cursor.deliveredSeq)
    lane.buffer = []
    const continues = next.every((e, i) => e.seq === cursor.deliveredSeq + 1 + i)
    if (lane.synced && continues) return next
    lane.synced = false
    return undefined
  }

  /** Reads the lane's next events from the outbox; a short read means the lane is synced. */
  private async readOutbox(lane: Lane, connectionId: string, cursor: Cursor, startPosition: number): Promise<PublishedEvent[]> {
    const events = await this.store.eventsAfter(connectionId, cursor.deliveredSeq, startPosition, LANE_BATCH)
    if (events.length < LANE_BATCH) lane.synced = true
    return events
  }

  /**
   * Attempts `event` (a replay of `letter` if given) until it is acknowledged or dead-lettered,
   * or a retry must wait (a timer wakes the lane). `firstTry` makes the first attempt instead of
   * `deliverOnce` (the lane's send window).
   */
  private async attempt(
    entry: Registered,
    lane: Lane,
    cursor: Cursor,
    event: PublishedEvent,
    letter?: DeadLetter,
    firstTry?: () => Promise<DeliveryOutcome>,
  ): Promise<Step> {
    const { subscriber, abort } = entry
    const { connectionId } = event
    const key = laneKey(subscriber.name, connectionId)
    for (;;) {
      const wait = cursor.nextAttemptAt - Date.now()
      if (wait > 0) {
        this.schedule(lane, key, subscriber.name, connectionId, wait)
        return 'waiting'
      }
      if (abort.signal.aborted) return 'waiting'
      const outcome = await (firstTry ?? (() => this.deliverOnce(subscriber, event, abort.signal)))()
      firstTry = undefined
      if (abort.signal.aborted) return 'waiting'
      const attempts = cursor.attempts + 1
      const log = { subscriber: subscriber.name, eventId: event.id, connectionId, seq: event.seq, attempts, replay: letter?.id }
      const record: DeliveryRecord = { subscriber: subscriber.name, event, status: 'acknowledged', attempts }
      if (outcome.result === 'acknowledged' && !letter) {
        this.move(subscriber.name, connectionId, event.seq)
      } else if (outcome.result === 'acknowledged') {
        await this.writeMoves()
        await this.store.finishReplay(letter!, { status: 'replayed' })
        record.status = 'replayed'
      } else if (outcome.result === 'rejected' || attempts >= subscriber.retry.maxAttempts) {
        const reason = outcome.result === 'rejected' ? 'rejected' : 'exhausted'
        this.logger.warn({ ...log, reason, error: outcome.error }, 'event dead-lettered')
        await this.writeMoves()
        if (letter) await this.store.finishReplay(letter, { status: 'dead', reason, attempts, lastError: outcome.error })
        else await this.store.deadLetter(subscriber.name, event, reason, attempts, outcome.error)
        Object.assign(record, { status: 'dead-lettered', error: outcome.error })
      } else {
        const nextAttemptAt = Date.now() + retryDelay(subscriber.retry, attempts)
        this.logger.debug({ ...log, error: outcome.error, nextAttemptAt }, 'event delivery failed; will retry')
        await this.writeMoves()
        await this.store.scheduleRetry(subscriber.name, connectionId, attempts, nextAttemptAt, outcome.error)
        Object.assign(cursor, { attempts, nextAttemptAt, lastError: outcome.error })
        this.report({ ...record, status: 'retry-scheduled', error: outcome.error, nextAttemptAt })
        continue
      }
      Object.assign(cursor, { attempts: 0, nextAttemptAt: 0, lastError: null })
      this.report(record)
      return 'done'
    }
  }

  private report(record: DeliveryRecord): void {
    for (const observer of this.observers) {
      try {
        observer(record)
      } catch (error) {
        this.logger.warn({ err: error }, 'delivery observer failed')
      }
    }
  }

  /**
   * `subscriber.deliver` once the event is durable (a subscriber never sees an event a power loss
   * could undo), with a throw turned into a retry.
   */
  private async deliverOnce(subscriber: Subscriber, event: PublishedEvent, signal: AbortSignal): Promise<DeliveryOutcome> {
    try {
      await this.store.syncToDisk()
    } catch (error) {
      return retryOutcome(error)
    }
    return this.deliverNow(subscriber, event, signal)
  }

  /** `subscriber.deliver` at once (the event is durable already), with a throw turned into a retry. */
  private async deliverNow(subscriber: Subscriber, event: PublishedEvent, signal: AbortSignal): Promise<DeliveryOutcome> {
    try {
      return await subscriber.deliver(event, signal)
    } catch (error) {
      return retryOutcome(error)
    }
  }
}
