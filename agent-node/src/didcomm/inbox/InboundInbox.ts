/**
 * The inbound DIDComm inbox: every envelope read from the public port (HTTP or WebSocket) is
 * stored in the agent database before it is processed, and deleted once processed: in batches,
 * one statement (one commit, one sync to disk) for the envelopes processed within
 * `DELETE_BATCH_MS`, and at `stop`. A delete that waits changes nothing a crash could show: the
 * envelope is processed again at the next start either way (see below). WebSocket
 * envelopes are processed one at a time in arrival order (as Credo does); an HTTP envelope is
 * processed at once in its request (a request waiting behind others could deadlock two agents
 * that answer each other over HTTP). A crash loses nothing that was read: envelopes
 * still stored are processed at the next start. An envelope is deleted only once the events its
 * processing published are stored (`settled`, given at `start`), so a message of any type whose
 * `message-received` a crash lost is processed again at the next start. An envelope processed but
 * not yet deleted when the process died is processed again (at least once; its `message-received`
 * is not published twice, `events/publisher.ts`). With several instances on one database, each
 * processes the envelopes it stored; those of an instance that died are adopted (`adopt`).
 *
 * The backlog is bounded: `full` tells the transports to stop reading (WebSocket: the socket is
 * paused until the backlog is down to half; HTTP: 503), so a burst waits in the senders' and the
 * kernel's buffers instead of agent-node's memory.
 *
 * Each envelope is processed in an event-loop turn of its own (`EventLoopTurns`): the database
 * and the crypto answer synchronously, so without that a backlog would be worked off in one
 * chain of microtasks and `/health` (and every socket) would wait until it is gone.
 */
import { randomUUID } from 'node:crypto'
import type { AgentContext } from '@credo-ts/core'
import { DidCommMessageReceiver, type DidCommEncryptedMessage, type DidCommTransportSession } from '@credo-ts/didcomm'
import { sql } from 'drizzle-orm'
import { applySchema, type Schema, execute, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import { instanceGone } from '../../cluster/leases.ts'
import { LEASES_SCHEMA } from '../../cluster/schema.ts'
import type { Logger } from '../../logging/index.ts'
import { EventLoopTurns } from './EventLoopTurns.ts'

/** Envelopes stored and not yet processed beyond which transports stop reading. */
export const MAX_INBOX_BACKLOG = 200

/** Milliseconds a processed envelope waits for others to be deleted with (the default of `open`). */
export const DELETE_BATCH_MS = 100

/** Processed envelopes deleted at once at most; reaching it deletes without waiting. */
const DELETE_BATCH_SIZE = 200

const SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS didcomm_inbox (
    id TEXT PRIMARY KEY,
    envelope TEXT NOT NULL,
    received_at BIGINT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS didcomm_inbox_received ON didcomm_inbox (received_at, id)`,
]

/**
 * Step 2, more than one agent-node on the database (`cluster/`): `instance_id`, the instance that
 * stored the envelope and processes it. NULL for rows stored before (adopted like a dead
 * instance's).
 */
const INSTANCE_SQL: readonly string[] = ['ALTER TABLE didcomm_inbox ADD COLUMN instance_id TEXT']

/** The versioned schema (`applySchema`): step 1 is the list above, as first released; append new steps. */
export const INBOX_SCHEMA: Schema = { name: 'didcomm_inbox', steps: [SCHEMA_SQL, INSTANCE_SQL] }

interface Job {
  id: string
  envelope: DidCommEncryptedMessage
  session?: DidCommTransportSession
}

export class InboundInbox {
  private readonly jobs: Job[] = []
  /** Envelopes accepted and not yet stored (the next batch). */
  private readonly arriving: Array<{ job: Job; resolve: () => void; reject: (error: unknown) => void }> = []
  private storing?: Promise<void>
  /** HTTP envelopes being processed in their requests. */
  private inRequests = 0
  private readonly roomListeners = new Set<() => void>()
  /** One envelope (WebSocket job or HTTP request) processed per event-loop iteration. */
  private readonly turns = new EventLoopTurns()
  private agentContext?: AgentContext
  /** Resolves once what processing published so far is stored (`start`). */
  private settled: () => Promise<void> = () => Promise.resolve()
  private working?: Promise<void>
  private stopped = false
  /** Ids of envelopes processed (and their events stored) that wait to be deleted together. */
  private processed: string[] = []
  private deleteTimer?: NodeJS.Timeout
  private deleting: Promise<void> = Promise.resolve()

  private constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly instanceId: string,
    private readonly deleteBatchMs: number,
  ) {}

  /**
   * Creates the table if missing; envelopes left by a previous run of this instance id, and those
   * `adopt` finds, wait for `start`. `instanceId`: this process (`cluster/`); its instance lease
   * must be held already. `deleteBatchMs`: how long a processed envelope waits for others to be
   * deleted with (milliseconds, default `DELETE_BATCH_MS`).
   */
  static async open(database: Database, logger: Logger, instanceId: string, deleteBatchMs = DELETE_BATCH_MS): Promise<InboundInbox> {
    await applySchema(database, INBOX_SCHEMA)
    await applySchema(database, LEASES_SCHEMA) // `adopt` reads the instance leases
    const inbox = new InboundInbox(database, logger, instanceId, deleteBatchMs)
    const left = await selectRows<{ id: string; envelope: string }>(
      database,
      sql`SELECT id, envelope FROM didcomm_inbox WHERE instance_id = ${instanceId} ORDER BY received_at, id`,
    )
    for (const row of left) inbox.jobs.push({ id: row.id, envelope: JSON.parse(row.envelope) as DidCommEncryptedMessage })
    if (left.length > 0)
      logger.warn({ count: left.length }, 'inbound DIDComm messages read before the last stop and not processed: processing them now')
    await inbox.adopt()
    return inbox
  }

  /**
   * Takes over the envelopes of instances that are gone (their instance lease expired or was
   * released, `cluster/leases.ts`) and queues them, oldest first. One statement moves each row to
   * this instance, so two live instances never both take it. A taken envelope may have been
   * processed already by the dead instance: processing it again publishes nothing new
   * (`message-received` is idempotent per DIDComm message, `events/publisher.ts`).
   * @returns how many were taken.
   */
  async adopt(now = Date.now()): Promise<number> {
    const rows = await selectRows<{ id: string; envelope: string; received_at: number | string }>(
      this.database,
      sql`UPDATE didcomm_inbox SET instance_id = ${this.instanceId}
      WHERE (instance_id IS NULL OR instance_id <> ${this.instanceId}) AND ${instanceGone(sql`didcomm_inbox.instance_id`, now)}
      RETURNING id, envelope, received_at`,
    )
    if (rows.length === 0) return 0
    rows.sort((a, b) => Number(a.received_at) - Number(b.received_at) || a.id.localeCompare(b.id))
    for (const row of rows) this.jobs.push({ id: row.id, envelope: JSON.parse(row.envelope) as DidCommEncryptedMessage })
    this.logger.warn({ count: rows.length }, 'inbound DIDComm messages of an instance that stopped or died: processing them here')
    this.kick()
    return rows.length
  }

  /** Envelopes stored and not yet processed. */
  get backlog(): number {
    return this.arriving.length + this.jobs.length + this.inRequests
  }

  /** Whether transports should stop reading (`MAX_INBOX_BACKLOG` reached). */
  get full(): boolean {
    return this.backlog >= MAX_INBOX_BACKLOG
  }

  /** Calls `listener` once, when the backlog is down to half of `MAX_INBOX_BACKLOG`. */
  onRoom(listener: () => void): void {
    this.roomListeners.add(listener)
  }

  /**
   * Stores `envelope`, then queues it for processing in arrival order (WebSocket; `session` takes
   * return-route replies). Resolves once it is stored; a failure to process it is logged.
   * Envelopes accepted in the same tick are stored in one statement (one commit, one sync to disk,
   * where one each would hold the event loop for a burst).
   */
  accept(envelope: DidCommEncryptedMessage, session?: DidCommTransportSession): Promise<void> {
    return new Promise((resolve, reject) => {
      this.arriving.push({ job: { id: randomUUID(), envelope, session }, resolve, reject })
      this.storing ??= this.storeArriving()
    })
  }

  /** Stores the envelopes accepted so far in one INSERT, then queues them in order. */
  private async storeArriving(): Promise<void> {
    await Promise.resolve() // let the current tick's envelopes join this batch
    try {
      while (this.arriving.length > 0) {
        const batch = this.arriving.splice(0, MAX_INBOX_BACKLOG)
        const now = Date.now()
        const rows = batch.map(({ job }, i) => sql`(${job.id}, ${JSON.stringify(job.envelope)}, ${now + i}, ${this.instanceId})`)
        try {
          await execute(
            this.database,
            sql`INSERT INTO didcomm_inbox (id, envelope, received_at, instance_id) VALUES ${sql.join(rows, sql`, `)}`,
          )
          for (const { job, resolve } of batch) {
            this.jobs.push(job)
            resolve()
          }
          this.kick()
        } catch (error) {
          for (const { reject } of batch) reject(error)
        }
      }
    } finally {
      this.storing = undefined
    }
  }

  /**
   * Stores `envelope` and processes it now (HTTP: the reply goes back on `session`).
   * @returns the error when Credo could not process it (then logged and dropped)
   * @throws when the agent is not started or the envelope cannot be stored
   */
  async processNow(envelope: DidCommEncryptedMessage, session: DidCommTransportSession): Promise<Error | undefined> {
    const agentContext = this.agentContext
    if (!agentContext) throw new Error('the inbox is not started')
    this.inRequests++
    try {
      await this.turns.next()
      const id = await this.store(envelope)
      const failure = await this.process(agentContext, envelope, session)
      await this.settled()
      this.processedOne(id)
      return failure
    } finally {
      this.inRequests--
    }
  }

  /**
   * Starts processing (stored envelopes first) in `agentContext`, once the agent is initialized.
   * `settled` resolves once the events published so far are stored; an envelope is deleted after it.
   */
  start(agentContext: AgentContext, settled?: () => Promise<void>): void {
    this.agentContext = agentContext
    if (settled) this.settled = settled
    this.kick()
  }

  /**
   * Finishes the envelope being processed and deletes the processed ones; the rest stays stored
   * for the next start.
   */
  async stop(): Promise<void> {
    this.stopped = true
    await this.working
    await this.deleteProcessed()
  }

  /** Notes a processed envelope for the next batch delete, started when due. */
  private processedOne(id: string): void {
    this.processed.push(id)
    if (this.processed.length >= DELETE_BATCH_SIZE) void this.deleteProcessed()
    else this.deleteTimer ??= setTimeout(() => void this.deleteProcessed(), this.deleteBatchMs)
  }

  /**
   * Deletes the envelopes processed so far in one statement, after any delete under way. A
   * failed delete is logged: those envelopes stay stored and are processed again at the next start.
   */
  private deleteProcessed(): Promise<void> {
    clearTimeout(this.deleteTimer)
    this.deleteTimer = undefined
    const ids = this.processed
    this.processed = []
    if (ids.length === 0) return this.deleting
    this.deleting = this.deleting.then(async () => {
      try {
        await execute(
          this.database,
          sql`DELETE FROM didcomm_inbox WHERE id IN (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )})`,
        )
      } catch (error) {
        this.logger.warn(
          { err: error, count: ids.length },
          'processed inbound DIDComm messages could not be deleted; processed again at the next start',
        )
      }
    })
    return this.deleting
  }

  private async store(envelope: DidCommEncryptedMessage): Promise<string> {
    const id = randomUUID()
    await execute(
      this.database,
      sql`INSERT INTO didcomm_inbox (id, envelope, received_at, instance_id)
      VALUES (${id}, ${JSON.stringify(envelope)}, ${Date.now()}, ${this.instanceId})`,
    )
    return id
  }

  /** Has Credo process `envelope`; the error, logged, when it could not. */
  private async process(
    agentContext: AgentContext,
    envelope: DidCommEncryptedMessage,
    session?: DidCommTransportSession,
  ): Promise<Error | undefined> {
    try {
      await agentContext.dependencyManager.resolve(DidCommMessageReceiver).receiveMessage(envelope, { session })
      return undefined
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error))
      this.logger.warn({ err: failure }, 'inbound DIDComm message could not be processed; dropped')
      return failure
    }
  }

  private kick(): void {
    if (this.working || !this.agentContext || this.stopped) return
    this.working = this.work(this.agentContext).finally(() => {
      this.working = undefined
    })
  }

  private async work(agentContext: AgentContext): Promise<void> {
    while (!this.stopped) {
      const job = this.jobs[0]
      if (!job) return
      await this.turns.next()
      if (this.stopped) return
      await this.process(agentContext, job.envelope, job.session)
      await this.settled()
      this.processedOne(job.id)
      this.jobs.shift()
      if (this.jobs.length <= MAX_INBOX_BACKLOG / 2 && this.roomListeners.size > 0) {
        const listeners = [...this.roomListeners]
        this.roomListeners.clear()
        for (const listener of listeners) listener()
      }
    }
  }
}
