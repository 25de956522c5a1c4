/**
 * Sending controller messages (`POST /v1/message` and tunnel `send-message` commands).
 *
 * `send` checks the connection, assigns the message id, reports `created`, and returns at once;
 * delivery continues in the background and reports `sent` or `errored` through
 * `message-state-updated` (spec: "the 200 response means queued, not delivered").
 */
import { randomUUID } from 'node:crypto'
import { DidCommConnectionService, DidCommDidExchangeState, DidCommMessageSender, DidCommOutboundMessageContext, type DidCommConnectionRecord } from '@credo-ts/didcomm'
import type { MessageState, SendMessageBody } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { EventPublisher } from '../events/publisher.ts'
import type { Logger } from '../logging/index.ts'
import type { SendContext } from './contract.ts'
import { sendMessage } from './registry.ts'

/** The target connection does not exist (HTTP 404) or cannot take messages yet (HTTP 409). */
export class ConnectionUnavailableError extends Error {
  constructor(readonly connectionId: string, readonly reason: 'not-found' | 'not-ready') {
    super(reason === 'not-found' ? `connection '${connectionId}' not found` : `connection '${connectionId}' has not completed DID Exchange`)
    this.name = 'ConnectionUnavailableError'
  }
}

export class MessageService {
  /** Deliveries still under way, so shutdown can wait for them. */
  private readonly inFlight = new Set<Promise<void>>()

  constructor(private readonly agent: DidcommAgent, private readonly events: EventPublisher, private readonly logger: Logger) {}

  /**
   * Queues `body` for delivery.
   * @returns the message id (UUID).
   * @throws ConnectionUnavailableError when the connection is unknown or not completed.
   */
  async send(body: SendMessageBody): Promise<{ id: string }> {
    const connectionService = this.agent.dependencyManager.resolve(DidCommConnectionService)
    const connection = await connectionService.findById(this.agent.context, body.connectionId)
    if (!connection) throw new ConnectionUnavailableError(body.connectionId, 'not-found')
    if (connection.state !== DidCommDidExchangeState.Completed) throw new ConnectionUnavailableError(body.connectionId, 'not-ready')

    const id = randomUUID()
    // Durable before the caller hears the id: `created` always precedes `sent`/`errored`.
    await this.report(id, body.connectionId, 'created')
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
    return { id }
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
