/**
 * Sending controller messages (`POST /v1/message` and tunnel `send-message` commands).
 *
 * `send` checks the connection, assigns the message id (the controller's `id` when it gave one,
 * as vs-agent's model allows; a reused one is refused), stores `created` with the body, and
 * returns; delivery continues in the background and reports `sent` or `errored` through
 * `message-state-updated` (spec: "the 200 response means queued, not delivered"). With an
 * idempotency key (the `Idempotency-Key` header, a tunnel command's key) the same key within
 * 24 h returns the first message id and sends nothing (`idempotency.ts`).
 *
 * A message the API accepted is sent at least once: if agent-node stops before it left,
 * `resendAccepted` (at start-up) sends every message still `created`, under the same DIDComm
 * `@id`, so a wallet that already got it can drop the repeat. A key claimed by a request that
 * died before its message was accepted is not a replay: the retry sends.
 * The peer's receipts later report `delivered` and `viewed`; states only move forward
 * (`DeliveryStates`).
 */
import { randomUUID } from 'node:crypto'
import { RecordDuplicateError } from '@credo-ts/core'
import { DidCommConnectionService, DidCommDidExchangeState, type DidCommConnectionRecord } from '@credo-ts/didcomm'
import type { MessageState, SendMessageBody } from '@parley/shared'
import { KeyedQueue } from '@parley/shared/concurrency'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { isTerminated } from '../didcomm/hangup.ts'
import { ConflictError, DomainError, type DomainErrorKind } from '../errors/index.ts'
import { sendOnConnection } from '../didcomm/sendOnConnection.ts'
import type { EventPublisher } from '../events/publisher.ts'
import type { Logger } from '../logging/index.ts'
import { requestHash, type IdempotencyScope, type IdempotencyStore } from './idempotency.ts'
import type { SendContext } from './contract.ts'
import { DeliveryStates } from './DeliveryStates.ts'
import { sentMessageRepository } from './SentMessageRecord.ts'
import { sendMessage } from './registry.ts'

const UNAVAILABLE = {
  'not-found': 'not found',
  'not-ready': 'has not completed DID Exchange',
  terminated: 'was terminated (hung up) and takes no more messages',
} as const

/** The kind and code of each reason a connection cannot take a message. */
const UNAVAILABLE_KIND = {
  'not-found': ['not_found', 'not_found'],
  'not-ready': ['conflict', 'conflict'],
  terminated: ['gone', 'connection_terminated'],
} as const satisfies Record<keyof typeof UNAVAILABLE, readonly [DomainErrorKind, string]>

/**
 * The target connection does not exist (not found), cannot take messages yet (conflict) or was
 * terminated by either side (gone, code `connection_terminated`).
 */
export class ConnectionUnavailableError extends DomainError {
  constructor(
    readonly connectionId: string,
    readonly reason: keyof typeof UNAVAILABLE,
  ) {
    const [kind, code] = UNAVAILABLE_KIND[reason]
    super(kind, code, `connection '${connectionId}' ${UNAVAILABLE[reason]}`)
  }
}

/** The controller gave a message `id` already used by another message (conflict, code `message_id_reused`, naming `id`). */
export class MessageIdReusedError extends ConflictError {
  constructor(readonly messageId: string) {
    const message = `message id '${messageId}' is already used by another message: give a new UUID, or none`
    super(message, { code: 'message_id_reused', issues: [{ field: 'id', message }] })
  }
}

/** An idempotency key and where it came from. */
export interface IdempotencyKey {
  scope: IdempotencyScope
  key: string
}

export class MessageService {
  /** Deliveries still under way, so shutdown can wait for them. */
  private readonly inFlight = new Set<Promise<void>>()
  /** Deliveries queued per connection. */
  private readonly connectionQueue = new KeyedQueue()
  /** Requests queued per idempotency key (scope and key). */
  private readonly sameKey = new KeyedQueue()
  private readonly states: DeliveryStates

  constructor(
    private readonly agent: DidcommAgent,
    events: EventPublisher,
    private readonly idempotency: IdempotencyStore,
    private readonly logger: Logger,
    /** This agent-node instance (`cluster/`): messages it accepts name it, see `resendAccepted`. */
    private readonly instanceId?: string,
  ) {
    this.states = new DeliveryStates(agent, events, logger, instanceId)
  }

  /**
   * Queues `body` for delivery, once per `idempotencyKey` within 24 h.
   * @returns the message id (UUID); `replayed` when the key had already sent it.
   * @throws ConnectionUnavailableError when the connection is unknown, not completed or terminated.
   * @throws IdempotencyKeyReusedError when the key was used for a different body.
   * @throws MessageIdReusedError when `body.id` (the controller's message id) names an earlier message.
   */
  send(body: SendMessageBody, idempotencyKey?: IdempotencyKey): Promise<{ id: string; replayed: boolean }> {
    if (!idempotencyKey) return this.accept(body)
    // One request per key at a time here: a second one finds the first one's message accepted
    // (a replay) or its claim given back, never a claim whose message is still being stored.
    return this.sameKey.run(`${idempotencyKey.scope}\n${idempotencyKey.key}`, () => this.accept(body, idempotencyKey))
  }

  /** `send`, with requests under one idempotency key queued one after another. */
  private async accept(body: SendMessageBody, idempotencyKey?: IdempotencyKey): Promise<{ id: string; replayed: boolean }> {
    let id = body.id ?? randomUUID()
    /** The key if this call claimed it (and so gives it back when the message cannot be accepted; a claim found is left as it was). */
    let claimed: IdempotencyKey | undefined
    if (idempotencyKey) {
      // Claimed first, in one statement on the path of every tunnel command; a live claim is
      // read only when there is one.
      const claim = await this.idempotency.claim(idempotencyKey.scope, idempotencyKey.key, requestHash(body), id)
      if (claim.status === 'replay') {
        if (await this.states.exists(claim.messageId)) return { id: claim.messageId, replayed: true }
        // claimed by a request that stopped before its message was accepted: send it now, under that id
        id = claim.messageId
      } else claimed = idempotencyKey
    }
    try {
      const connection = await this.acceptingConnection(body.connectionId)
      if (body.id && (await sentMessageRepository(this.agent.context).findById(this.agent.context, body.id)))
        throw new MessageIdReusedError(body.id)
      try {
        // Durable before the caller hears the id: `created` always precedes `sent`/`errored`.
        await this.states.create(id, body.connectionId, body)
      } catch (error) {
        // Two requests with the same new id at once: the second one's record collides.
        if (body.id && error instanceof RecordDuplicateError) throw new MessageIdReusedError(body.id)
        throw error
      }
      this.deliver(id, body, connection)
      return { id, replayed: false }
    } catch (error) {
      if (claimed) await this.idempotency.release(claimed.scope, claimed.key, id)
      throw error
    }
  }

  /**
   * The connection `connectionId` if it takes messages.
   * @throws ConnectionUnavailableError when it is unknown, not completed or terminated.
   */
  private async acceptingConnection(connectionId: string): Promise<DidCommConnectionRecord> {
    const connectionService = this.agent.dependencyManager.resolve(DidCommConnectionService)
    const connection = await connectionService.findById(this.agent.context, connectionId)
    if (!connection) throw new ConnectionUnavailableError(connectionId, 'not-found')
    if (connection.state !== DidCommDidExchangeState.Completed) throw new ConnectionUnavailableError(connectionId, 'not-ready')
    if (isTerminated(connection)) throw new ConnectionUnavailableError(connectionId, 'terminated')
    return connection
  }

  /**
   * Sends every message accepted but not yet sent or errored (agent-node stopped before it left),
   * under its own id, in the order accepted; messages whose connection is gone or terminated are
   * reported `errored`. Call at start-up, after the event publisher is wired. With several
   * instances on one database (`cluster/`), only the messages whose sending instance `adoptable`
   * says is gone (or is this one, restarted) are taken, and recorded as this instance's: call it
   * again whenever an instance may have died.
   * @param adoptable whether the messages of the instance with this id (undefined: made before
   *   instances had ids) are for this instance to send; default: all of them
   * @returns how many were sent again, and how many errored at once
   */
  async resendAccepted(
    adoptable: (instanceId: string | undefined) => Promise<boolean> = async () => true,
  ): Promise<{ resent: number; errored: number }> {
    const connectionService = this.agent.dependencyManager.resolve(DidCommConnectionService)
    let resent = 0
    let errored = 0
    for (const { messageId, connectionId, body, instanceId } of await this.states.accepted()) {
      if (!(await adoptable(instanceId))) continue
      if (instanceId !== this.instanceId) await this.states.adopt(messageId)
      const connection = await connectionService.findById(this.agent.context, connectionId)
      if (!body || !connection || isTerminated(connection)) {
        this.logger.warn(
          { messageId, connectionId },
          'an accepted message cannot be sent after the restart (no body, or its connection is gone)',
        )
        await this.report(messageId, connectionId, 'errored')
        errored++
        continue
      }
      this.deliver(messageId, body, connection)
      resent++
    }
    return { resent, errored }
  }

  /**
   * Sends `body` as message `id` in the background, reporting `sent` or `errored`. Messages of one
   * connection leave in the order they were accepted (one at a time), so the wallet sees them in
   * that order; connections do not wait for each other.
   */
  private deliver(id: string, body: SendMessageBody, connection: DidCommConnectionRecord): void {
    const delivery = this.connectionQueue
      .run(body.connectionId, () => sendMessage(body, this.sendContext(connection, id)))
      .then(
        () => void this.report(id, body.connectionId, 'sent'),
        (error: unknown) => {
          this.logger.warn({ messageId: id, connectionId: body.connectionId, err: error }, 'message delivery failed')
          void this.report(id, body.connectionId, 'errored')
        },
      )
      .finally(() => this.inFlight.delete(delivery))
    this.inFlight.add(delivery)
  }

  /** Resolves when every delivery started so far has finished and its states are recorded. */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight)
    await this.states.settled()
  }

  private sendContext(connection: DidCommConnectionRecord, messageId: string): SendContext {
    const { agent } = this
    return {
      agent,
      connection,
      messageId,
      async sendDidComm(message) {
        message.id = messageId
        await sendOnConnection(agent.context, connection, message)
      },
    }
  }

  private report(messageId: string, connectionId: string, state: MessageState): Promise<void> {
    return this.states.advance(messageId, connectionId, state)
  }
}
