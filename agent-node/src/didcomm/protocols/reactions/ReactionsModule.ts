/**
 * 2060.io's message reactions 1.0 (https://didcomm.org/reactions/1.0): `message-reactions`
 * carries emoji reactions to messages. Stateless: received reactions become an event (the
 * controller gets them as `reaction` messages, `messaging/adapters/receipts.ts`); sending is the
 * message class alone.
 */
import { EventEmitter, type AgentContext, type Module } from '@credo-ts/core'
import { DidCommFeatureRegistry, DidCommMessageHandlerRegistry, DidCommProtocol } from '@credo-ts/didcomm'
import { messageHandler } from '../../messageHandler.ts'
import { MessageReactionsMessage } from './messages/MessageReactionsMessage.ts'
import { ReactionsEventTypes, type MessageReactionsReceivedEvent } from './ReactionsEvents.ts'

export class ReactionsModule implements Module {
  register(): void {}

  async initialize(agentContext: AgentContext): Promise<void> {
    const events = agentContext.resolve(EventEmitter)
    agentContext.resolve(DidCommMessageHandlerRegistry).registerMessageHandler(
      messageHandler([MessageReactionsMessage], (inbound): undefined => {
        const connection = inbound.assertReadyConnection()
        events.emit<MessageReactionsReceivedEvent>(inbound.agentContext, {
          type: ReactionsEventTypes.MessageReactionsReceived,
          payload: { connectionId: connection.id, message: inbound.message },
        })
      }),
    )
    agentContext.resolve(DidCommFeatureRegistry).register(new DidCommProtocol({ id: 'https://didcomm.org/reactions/1.0' }))
  }
}
