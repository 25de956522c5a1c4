/**
 * The inbound DIDComm inbox: every envelope read from the public port (HTTP or WebSocket) is
 * stored in the agent database before it is processed, processed one at a time in arrival order
 * (as Credo does), and deleted once processed. A crash loses nothing that was read: envelopes
 * still stored are processed at the next start. An envelope processed but not yet deleted when the
 * process died is processed again (at least once; events carry the DIDComm message id).
 *
 * The backlog is bounded: `full` tells the transports to stop reading (WebSocket: the socket is
 * paused until the backlog is down to half; HTTP: 503), so a burst waits in the senders' and the
 * kernel's buffers instead of agent-node's memory, and the event loop keeps serving `/health`.
 */
import { randomUUID } from 'node:crypto'
import type { AgentContext } from '@credo-ts/core'
import { DidCommMessageReceiver, type DidCommEncryptedMessage, type DidCommTransportSession } from '@credo-ts/didcomm'
import { sql } from 'drizzle-orm'
import { applySchema, execute, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import type { Logger } from '../../logging/index.ts'

/** Envelopes stored and not yet processed beyond which transports stop reading. */
export const MAX_INBOX_BACKLOG = 200

const SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS didcomm_inbox (
    id TEXT PRIMARY KEY,
    envelope TEXT NOT NULL,
    received_at BIGINT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS didcomm_inbox_received ON didcomm_inbox (received_at, id)`,
]

interface Job {
  id: string
  envelope: DidCommEncryptedMessage
  session?: DidCommTransportSession
  done: (error?: Error) => void
}

export class InboundInbox {
  private readonly jobs: Job[] = []
  private readonly roomListeners = new Set<() => void>()
  private agentContext?: AgentContext
  private working?: Promise<void>
  private stopped = false

  private constructor(private readonly database: Database, private readonly logger: Logger) {}

  /** Creates the table if missing; envelopes left by a previous run wait for `start`. */
  static async open(database: Database, logger: Logger): Promise<InboundInbox> {
    await applySchema(database, SCHEMA_SQL)
    const inbox = new InboundInbox(database, logger)
    const left = await selectRows<{ id: string; envelope: string }>(database, sql`SELECT id, envelope FROM didcomm_inbox ORDER BY received_at, id`)
    for (const row of left) inbox.jobs.push({ id: row.id, envelope: JSON.parse(row.envelope) as DidCommEncryptedMessage, done: () => {} })
    if (left.length > 0) logger.warn({ count: left.length }, 'inbound DIDComm messages read before the last stop and not processed: processing them now')
    return inbox
  }

  /** Envelopes stored and not yet processed. */
  get backlog(): number {
    return this.jobs.length
  }

  /** Whether transports should stop reading (`MAX_INBOX_BACKLOG` reached). */
  get full(): boolean {
    return this.jobs.length >= MAX_INBOX_BACKLOG
  }

  /** Calls `listener` once, when the backlog is down to half of `MAX_INBOX_BACKLOG`. */
  onRoom(listener: () => void): void {
    this.roomListeners.add(listener)
  }

  /**
   * Stores `envelope`, then queues it for processing (with `session` for return-route replies).
   * Resolves once it is stored; `processed` resolves once it was processed, with the error when
   * Credo could not process it (then logged and dropped).
   */
  async accept(envelope: DidCommEncryptedMessage, session?: DidCommTransportSession): Promise<{ processed: Promise<Error | undefined> }> {
    const id = randomUUID()
    await execute(this.database, sql`INSERT INTO didcomm_inbox (id, envelope, received_at) VALUES (${id}, ${JSON.stringify(envelope)}, ${Date.now()})`)
    const processed = new Promise<Error | undefined>((done) => this.jobs.push({ id, envelope, session, done }))
    this.kick()
    return { processed }
  }

  /** Starts processing (stored envelopes first) in `agentContext`, once the agent is initialized. */
  start(agentContext: AgentContext): void {
    this.agentContext = agentContext
    this.kick()
  }

  /** Finishes the envelope being processed; the rest stays stored for the next start. */
  async stop(): Promise<void> {
    this.stopped = true
    await this.working
  }

  private kick(): void {
    if (this.working || !this.agentContext || this.stopped) return
    this.working = this.work(this.agentContext).finally(() => {
      this.working = undefined
    })
  }

  private async work(agentContext: AgentContext): Promise<void> {
    const receiver = agentContext.dependencyManager.resolve(DidCommMessageReceiver)
    while (!this.stopped) {
      const job = this.jobs[0]
      if (!job) return
      let failure: Error | undefined
      try {
        await receiver.receiveMessage(job.envelope, { session: job.session })
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error))
        this.logger.warn({ err: failure }, 'inbound DIDComm message could not be processed; dropped')
      }
      await execute(this.database, sql`DELETE FROM didcomm_inbox WHERE id = ${job.id}`)
      this.jobs.shift()
      job.done(failure)
      if (this.jobs.length <= MAX_INBOX_BACKLOG / 2 && this.roomListeners.size > 0) {
        const listeners = [...this.roomListeners]
        this.roomListeners.clear()
        for (const listener of listeners) listener()
      }
    }
  }
}
