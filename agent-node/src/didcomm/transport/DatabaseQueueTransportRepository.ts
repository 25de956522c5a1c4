/**
 * Credo's message pickup queue (`DidCommQueueTransportRepository`, `@credo-ts/didcomm` 0.6) in the
 * agent database instead of memory: messages for a wallet with no endpoint of its own (it picks
 * them up, Aries RFC 0685 Pickup v2) survive a restart of agent-node. The stored payload is the
 * packed (encrypted) DIDComm message, as Credo hands it over.
 *
 * Semantics follow Credo's `InMemoryQueueTransportRepository`: `takeFromQueue` marks messages
 * `sending` so they are not taken twice (one conditional statement: two instances on one
 * database never take the same message), `removeMessages` deletes them once the wallet confirmed
 * them. Messages left `sending` by a process that stopped are `pending` again when the queue is
 * opened, or, taken by another instance on the same database that died, once its instance lease
 * expired (`releaseGone`): delivered at least once (the wallet drops repeats by `@id`).
 *
 * The repository also knows, in memory, which connections may have messages waiting (queued, not
 * yet taken: `hasWaiting`) and which have messages taken for a delivery that has not been handed
 * to the transport yet (`isDelivering`). `OrderedMessageSender` reads both on every send, so that
 * a later message overtakes neither.
 */
import { randomUUID } from 'node:crypto'
import type { AgentContext } from '@credo-ts/core'
import type { DidCommEncryptedMessage, DidCommQueueTransportRepository, QueuedDidCommMessage } from '@credo-ts/didcomm'
import { type SQL, sql } from 'drizzle-orm'
import pTimeout from 'p-timeout'
import { applySchema, type Schema, execute, selectRows } from '../../database/dialect.ts'
import type { Database } from '../../database/index.ts'
import { instanceGone } from '../../cluster/leases.ts'
import { LEASES_SCHEMA } from '../../cluster/schema.ts'

/** One row per queued message; `seq` keeps arrival order, `recipient_dids` is a JSON array. */
const SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS didcomm_pickup_queue (
    id TEXT PRIMARY KEY,
    context_id TEXT NOT NULL,
    connection_id TEXT NOT NULL,
    recipient_dids TEXT NOT NULL,
    payload TEXT NOT NULL,
    received_at BIGINT NOT NULL,
    state TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS didcomm_pickup_queue_connection ON didcomm_pickup_queue (context_id, connection_id, state, received_at)`,
]

/**
 * Step 2, more than one agent-node on the database (`cluster/`): `instance_id`, the instance that
 * took a message (`sending`), so what a dead instance took is offered again (`releaseGone`).
 */
const INSTANCE_SQL: readonly string[] = ['ALTER TABLE didcomm_pickup_queue ADD COLUMN instance_id TEXT']

/**
 * Step 3, the cluster round's reads (`releaseGone`, `pendingConnections`) through partial indexes
 * of the rows in the state they look for, instead of a scan of the whole queue every round
 * (62–94 ms at 100,000 queued messages for `releaseGone`).
 */
const ROUND_INDEXES_SQL: readonly string[] = [
  `CREATE INDEX didcomm_pickup_queue_sending ON didcomm_pickup_queue (instance_id) WHERE state = 'sending'`,
  `CREATE INDEX didcomm_pickup_queue_pending ON didcomm_pickup_queue (connection_id) WHERE state = 'pending'`,
]

/** The versioned schema (`applySchema`): step 1 is the list above, as first released; append new steps. */
export const PICKUP_QUEUE_SCHEMA: Schema = { name: 'didcomm_pickup_queue', steps: [SCHEMA_SQL, INSTANCE_SQL, ROUND_INDEXES_SQL] }

/** A pending message as the reads that choose what to take see it: no payload. */
interface PendingRow extends Record<string, unknown> {
  id: string
  recipient_dids: string
  received_at: string | number
}

type Options = Parameters<DidCommQueueTransportRepository['takeFromQueue']>[1]

/** One take for a delivery: the queue ids still undelivered, and its settling. */
interface Take {
  readonly ids: Set<string>
  readonly settled: Promise<void>
  readonly settle: () => void
}

export class DatabaseQueueTransportRepository implements DidCommQueueTransportRepository {
  /** `received_at` of the last message this process queued, in epoch ms. */
  private lastReceivedAt = 0
  private readonly queuedListeners = new Set<(connectionId: string) => void>()
  /**
   * Connections that may have messages waiting, each with the `changes` count of the last time
   * one was queued or offered again: a take that saw every waiting message forgets the
   * connection only if nothing was queued for it meanwhile.
   */
  private readonly waiting = new Map<string, number>()
  private changes = 0
  /**
   * The takes for Pickup v2 deliveries (messages marked `sending`) by this process, per connection
   * in take order, each until its delivery was handed to the transport (`delivered`), given back
   * (`release`) or confirmed by the wallet (`removeMessages`).
   */
  private readonly delivering = new Map<string, Take[]>()

  private constructor(
    private readonly database: Database,
    private readonly instanceId: string,
  ) {}

  /**
   * Creates the table if missing and makes messages left `sending` by a stopped process (this
   * instance id's previous run, or an instance that is gone) `pending` again. `instanceId`: this
   * process (`cluster/`).
   */
  static async open(database: Database, instanceId: string): Promise<DatabaseQueueTransportRepository> {
    await applySchema(database, PICKUP_QUEUE_SCHEMA)
    await applySchema(database, LEASES_SCHEMA) // `releaseGone` reads the instance leases
    const queue = new DatabaseQueueTransportRepository(database, instanceId)
    await execute(database, sql`UPDATE didcomm_pickup_queue SET state = 'pending' WHERE state = 'sending' AND instance_id = ${instanceId}`)
    await queue.releaseGone()
    for (const connectionId of await queue.pendingConnections()) queue.noteWaiting(connectionId)
    return queue
  }

  /**
   * Whether messages may be waiting in the queue for `connectionId`: queued (here, or by another
   * instance that said so through `noteWaiting`) and not yet taken. No database read; a `true`
   * turns `false` at the first take or count that finds none waiting.
   */
  hasWaiting(connectionId: string): boolean {
    return this.waiting.has(connectionId)
  }

  /**
   * Whether messages this process took for `connectionId` are in a delivery not yet handed to the
   * transport (Credo takes them, then builds, packs and sends the delivery): a message sent over
   * the wallet's session meanwhile would reach it before them. No database read.
   */
  isDelivering(connectionId: string): boolean {
    return this.delivering.has(connectionId)
  }

  /**
   * Records that the delivery of these taken messages (queue ids) was handed to the transport:
   * later messages no longer wait behind them. Ids not taken by this process are ignored.
   */
  delivered(connectionId: string, messageIds: readonly string[]): void {
    for (const take of this.delivering.get(connectionId) ?? []) this.untake(connectionId, take, messageIds)
  }

  /**
   * Resolves once the deliveries of every take of `connectionId` made before the one that took
   * `messageIds` are settled (`delivered`), so deliveries reach the wallet in queue order however
   * long each one takes to build and pack; at once for messages no take of this process holds.
   * Waits at most `timeoutMs`: a delivery Credo never sent must not hold its connection forever.
   */
  async deliveriesBefore(connectionId: string, messageIds: readonly string[], timeoutMs: number): Promise<void> {
    const takes = this.delivering.get(connectionId) ?? []
    const index = takes.findIndex((take) => messageIds.some((id) => take.ids.has(id)))
    if (index <= 0) return
    await pTimeout(Promise.all(takes.slice(0, index).map((take) => take.settled)), { milliseconds: timeoutMs, message: false })
  }

  /** Records that messages may be waiting for `connectionId` (another instance queued some: `pickup-relay.ts`). */
  noteWaiting(connectionId: string): void {
    this.waiting.set(connectionId, ++this.changes)
  }

  /**
   * Makes the messages that instances now gone had taken (`sending`, not confirmed by the wallet)
   * `pending` again, to be offered through a live instance (at least once: the wallet drops
   * repeated `@id`s).
   * @returns the connections that have such messages again.
   */
  async releaseGone(now = Date.now()): Promise<string[]> {
    const rows = await selectRows<{ connection_id: string }>(
      this.database,
      sql`UPDATE didcomm_pickup_queue SET state = 'pending', instance_id = NULL
      WHERE state = 'sending' AND (instance_id IS NULL OR instance_id <> ${this.instanceId})
        AND ${instanceGone(sql`didcomm_pickup_queue.instance_id`, now)}
      RETURNING connection_id`,
    )
    const connections = [...new Set(rows.map((row) => row.connection_id))]
    for (const connectionId of connections) this.noteWaiting(connectionId)
    return connections
  }

  /** The connections that have messages waiting to be taken (`pending`). */
  async pendingConnections(): Promise<string[]> {
    const rows = await selectRows<{ connection_id: string }>(
      this.database,
      sql`SELECT DISTINCT connection_id FROM didcomm_pickup_queue WHERE state = 'pending'`,
    )
    return rows.map((row) => row.connection_id)
  }

  /**
   * Calls `listener` with the connection id of each message queued by this process, once stored
   * (the instance holding that wallet's live session may be another one: `pickup-relay.ts`). It
   * must not throw.
   */
  onQueued(listener: (connectionId: string) => void): void {
    this.queuedListeners.add(listener)
  }

  /**
   * Pending messages for the connection (and recipient, when given): counted in the database
   * for the whole connection, else from the recipients of its pending messages (no payloads read).
   */
  async getAvailableMessageCount(agentContext: AgentContext, options: { connectionId: string; recipientDid?: string }): Promise<number> {
    const seen = this.waiting.get(options.connectionId)
    const count =
      options.recipientDid === undefined
        ? Number(
            (
              await selectRows<{ count: string | number }>(
                this.database,
                sql`SELECT COUNT(*) AS count FROM didcomm_pickup_queue WHERE ${this.pendingOf(agentContext, options.connectionId)}`,
              )
            )[0]?.count ?? 0,
          )
        : (await this.pending(agentContext, options)).length
    if (count === 0) this.forgetWaiting(options, seen)
    return count
  }

  /**
   * Takes up to `limit` pending messages, oldest first: marks them `sending`, or deletes them with
   * `deleteMessages`. Reads the payloads of the messages taken only, and for the whole
   * connection no more than `limit` + 1 pending rows: a wallet emptying a queue of n messages
   * reads each about once, not n times.
   */
  async takeFromQueue(agentContext: AgentContext, options: Options): Promise<QueuedDidCommMessage[]> {
    const seen = this.waiting.get(options.connectionId)
    const limit = options.limit ?? undefined
    // one more than the limit: whether some are left after this take
    const rows = await this.pending(agentContext, options, limit === undefined ? undefined : limit + 1)
    const candidates = rows.slice(0, limit)
    // noted before the waiting is forgotten, so a send meanwhile always sees one or the other
    const take = options.deleteMessages ? undefined : this.noteDelivering(options.connectionId, candidates)
    // every waiting message is taken now (here, or by a concurrent take)
    if (candidates.length === rows.length) this.forgetWaiting(options, seen)
    if (candidates.length === 0) return []
    const ids = sql.join(
      candidates.map((row) => sql`${row.id}`),
      sql`, `,
    )
    // only rows still pending: another instance (or a concurrent pickup) may have taken some
    const taken = await selectRows<{ id: string; payload: string }>(
      this.database,
      options.deleteMessages
        ? sql`DELETE FROM didcomm_pickup_queue WHERE id IN (${ids}) AND state = 'pending' RETURNING id, payload`
        : sql`UPDATE didcomm_pickup_queue SET state = 'sending', instance_id = ${this.instanceId}
          WHERE id IN (${ids}) AND state = 'pending' RETURNING id, payload`,
    )
    const payloads = new Map(taken.map((row) => [row.id, row.payload]))
    // those another take got first are its delivery's, not this one's
    if (take)
      this.untake(
        options.connectionId,
        take,
        candidates.filter((row) => !payloads.has(row.id)).map((row) => row.id),
      )
    return candidates.flatMap((row) => {
      const payload = payloads.get(row.id)
      if (payload === undefined) return []
      return [
        { id: row.id, receivedAt: new Date(Number(row.received_at)), encryptedMessage: JSON.parse(payload) as DidCommEncryptedMessage },
      ]
    })
  }

  /** Queues a packed message for the connection. @returns the queue's id of it */
  async addMessage(
    agentContext: AgentContext,
    options: { connectionId: string; recipientDids: string[]; payload: DidCommEncryptedMessage; receivedAt?: Date },
  ): Promise<string> {
    const id = randomUUID()
    // Queue order is `received_at`: two messages queued in the same millisecond keep their order.
    const receivedAt = options.receivedAt?.getTime() ?? Math.max(Date.now(), this.lastReceivedAt + 1)
    if (!options.receivedAt) this.lastReceivedAt = receivedAt
    // Noted before the insert (a send meanwhile already waits behind it) and after it (a take
    // that read before the insert was visible must not forget it).
    this.noteWaiting(options.connectionId)
    await execute(
      this.database,
      sql`INSERT INTO didcomm_pickup_queue (id, context_id, connection_id, recipient_dids, payload, received_at, state)
      VALUES (${id}, ${agentContext.contextCorrelationId}, ${options.connectionId}, ${JSON.stringify(options.recipientDids)},
        ${JSON.stringify(options.payload)}, ${receivedAt}, 'pending')`,
    )
    this.noteWaiting(options.connectionId)
    for (const listener of this.queuedListeners) listener(options.connectionId)
    return id
  }

  /**
   * Makes messages this instance took for a delivery that could not be sent (`sending`, by their
   * queue ids) `pending` again, to go with the connection's next delivery or pickup, and notes
   * that they wait.
   */
  async release(connectionId: string, messageIds: string[]): Promise<void> {
    if (messageIds.length === 0) return
    await execute(
      this.database,
      sql`UPDATE didcomm_pickup_queue SET state = 'pending', instance_id = NULL
      WHERE connection_id = ${connectionId} AND state = 'sending' AND instance_id = ${this.instanceId}
        AND id IN (${sql.join(
          messageIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
    )
    this.noteWaiting(connectionId)
    this.delivered(connectionId, messageIds)
  }

  /** Deletes messages the wallet confirmed. */
  async removeMessages(agentContext: AgentContext, options: { connectionId: string; messageIds: string[] }): Promise<void> {
    if (options.messageIds.length === 0) return
    this.delivered(options.connectionId, options.messageIds)
    await execute(
      this.database,
      sql`DELETE FROM didcomm_pickup_queue
      WHERE context_id = ${agentContext.contextCorrelationId} AND connection_id = ${options.connectionId}
        AND id IN (${sql.join(
          options.messageIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
    )
  }

  /**
   * Forgets that messages may be waiting for the connection, after a read (at `seen`) found none
   * left: only for a read of all its recipients, and only if nothing was queued since.
   */
  private forgetWaiting(options: { connectionId: string; recipientDid?: string }, seen: number | undefined): void {
    if (options.recipientDid === undefined && this.waiting.get(options.connectionId) === seen) this.waiting.delete(options.connectionId)
  }

  /** Records a take of `rows` for a delivery, after the connection's earlier takes. */
  private noteDelivering(connectionId: string, rows: readonly PendingRow[]): Take | undefined {
    if (rows.length === 0) return undefined
    let settle = () => {}
    const settled = new Promise<void>((resolve) => {
      settle = resolve
    })
    const take = { ids: new Set(rows.map((row) => row.id)), settled, settle }
    this.delivering.set(connectionId, [...(this.delivering.get(connectionId) ?? []), take])
    return take
  }

  /** Takes `messageIds` out of `take`; settles and forgets the take once none is left in it. */
  private untake(connectionId: string, take: Take, messageIds: readonly string[]): void {
    for (const id of messageIds) take.ids.delete(id)
    if (take.ids.size > 0) return
    take.settle()
    const left = (this.delivering.get(connectionId) ?? []).filter((other) => other !== take)
    if (left.length > 0) this.delivering.set(connectionId, left)
    else this.delivering.delete(connectionId)
  }

  /** The condition of the connection's pending messages (the queue index's leading columns). */
  private pendingOf(agentContext: AgentContext, connectionId: string): SQL {
    return sql`context_id = ${agentContext.contextCorrelationId} AND connection_id = ${connectionId} AND state = 'pending'`
  }

  /**
   * The connection's pending messages (those for `recipientDid` only, when given), oldest first,
   * at most `limit` (all without it); payloads are not read. Without a recipient the database
   * stops at `limit`; with one, every pending row's recipients are read and filtered here.
   */
  private async pending(
    agentContext: AgentContext,
    options: { connectionId: string; recipientDid?: string },
    limit?: number,
  ): Promise<PendingRow[]> {
    const { recipientDid } = options
    const bounded = recipientDid === undefined && limit !== undefined
    const rows = await selectRows<PendingRow>(
      this.database,
      sql`SELECT id, recipient_dids, received_at FROM didcomm_pickup_queue
      WHERE ${this.pendingOf(agentContext, options.connectionId)}
      ORDER BY received_at, id${bounded ? sql` LIMIT ${limit}` : sql``}`,
    )
    const matching =
      recipientDid === undefined ? rows : rows.filter((row) => (JSON.parse(row.recipient_dids) as string[]).includes(recipientDid))
    return matching.slice(0, limit)
  }
}
