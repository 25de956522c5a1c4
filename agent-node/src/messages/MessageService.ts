/**
 * Sending controller messages (`POST /v1/message` and tunnel `send-message` commands).
 *
 * `send` checks the connection, assigns the message id, stores `created` in the event outbox, and
 * returns; delivery continues in the background and reports `sent` or `errored` through
 * `message-state-updated` (spec: "the 200 response means queued, not delivered"). With an
 * idempotency key (the `Idempotency-Key` header, a tunnel command's key) the same key within
 * 24 h returns the first message id and sends nothing (`idempotency.ts`).
 */
import { randomUUID } from 'node:crypto'
import { DidCommConnectionService, DidCommDidExchangeState, DidCommMessageSender, DidCommOutboundMessageContext, type DidCommConnectionRecord } from '@credo-ts/didcomm'
import type { MessageState, SendMessageBody } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { EventPublisher } from '../events/publisher.ts'
import type { Logger } from '../logging/index.ts'
import { requestHash, IdempotencyKeyReusedError, type IdempotencyScope, type IdempotencyStore } from './idempotency.ts'
import type { SendContext } from './contract.ts'
import { sendMessage } from './registry.ts'

/** The target connection does not exist (HTTP 404) or cannot take messages yet (HTTP 409). */
export class ConnectionUnavailableError extends Error {
  constructor(readonly connectionId: string, readonly reason: 'not-found' | 'not-ready') {
    super(reason === 'not-found' ? `connection '${connectionId}' not found` : `connection '${connectionId}' has not completed DID Exchange`)
    this.name = 'ConnectionUnavailableError'
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

  constructor(
    private readonly agent: DidcommAgent,
    private readonly events: EventPublisher,
    private readonly idempotency: IdempotencyStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Queues `body` for delivery, once per `idempotencyKey` within 24 h.
   * @returns the message id (UUID); `replayed` when the key had already sent it.
   * @throws ConnectionUnavailableError when the connection is unknown or not completed.
   * @throws IdempotencyKeyReusedError when the key was used for a different body.
   */
  async send(body: SendMessageBody, idempotencyKey?: IdempotencyKey): Promise<{ id: string; replayed: boolean }> {
    const hash = idempotencyKey && requestHash(body)
    if (idempotencyKey) {
      const existing = await this.idempotency.find(idempotencyKey.scope, idempotencyKey.key)
      if (existing && existing.requestHash !== hash) throw new IdempotencyKeyReusedError(idempotencyKey.key)
      if (existing) return { id: existing.messageId, replayed: true }
    }
    const connectionService = this.agent.dependencyManager.resolve(DidCommConnectionService)
    const connection = await connectionService.findById(this.agent.context, body.connectionId)
    if (!connection) throw new ConnectionUnavailableError(body.connectionId, 'not-found')
    if (connection.state !== DidCommDidExchangeState.Completed) throw new ConnectionUnavailableError(body.connectionId, 'not-ready')

    const id = randomUUID()
    if (idempotencyKey) {
      const claim = await this.idempotency.claim(idempotencyKey.scope, idempotencyKey.key, hash!, id)
      if (claim.status === 'replay') return { id: claim.messageId, replayed: true }
    }
    try {
      // Durable before the caller hears the id: `created` always precedes `sent`/`errored`.
      await this.report(id, body.connectionId, 'created')
    } catch (error) {
      if (idempotencyKey) await this.idempotency.release(idempotencyKey.scope, idempotencyKey.key, id)
      throw error
    }
    const delivery = sendMessage(body, this.sendContext(connection, id))
      .then(
        () => void this.report(id, body.connectionId, 'sent'),
        (error: unknown) => {
          this.logger.warn({ messageId: id, connectionId: body.connectionId, err: error }, 'message delivery failed')
          void this.report(id, body.connectionId, 'errored')
        },
      )
      .finally(() => this.inFlight.delete(delivery))
    this.inFlight.add(delivery)
    return { id, replayed: false }
  }

  /** Resolves when every delivery started so far has finished. */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight)
  }

  private sendContext(connection: DidCommConnectionRecord, messageId: string): SendContext {
    const { agent } = this
    return {
      agent,
      connection,
      messageId,
      async sendDidComm(message) {
        message.id = messageId
        await agent.dependencyManager
          .resolve(DidCommMessageSender)
          .sendMessage(new DidCommOutboundMessageContext(message, { agentContext: agent.context, connection }))
      },
    }
  }

  private report(messageId: string, connectionId: string, state: MessageState): Promise<unknown> {
    return this.events.publish({ type: 'message-state-updated', messageId, connectionId, state, timestamp: Math.floor(Date.now() / 1000) })
  }
}
