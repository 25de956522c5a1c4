/** Receipts, stateless: received receipts and receipt requests become events. */
import { EventEmitter, inject, injectable } from '@credo-ts/core'
import type { DidCommInboundMessageContext } from '@credo-ts/didcomm'
import type { MessageReceiptsMessage, RequestReceiptsMessage } from '../messages/index.ts'
import { ReceiptsEventTypes, type MessageReceiptsReceivedEvent, type RequestReceiptsReceivedEvent } from '../ReceiptsEvents.ts'

@injectable()
export class ReceiptsService {
  constructor(@inject(EventEmitter) private readonly eventEmitter: EventEmitter) {}

  processReceipts(messageContext: DidCommInboundMessageContext<MessageReceiptsMessage>): undefined {
    const connection = messageContext.assertReadyConnection()
    this.eventEmitter.emit<MessageReceiptsReceivedEvent>(messageContext.agentContext, {
      type: ReceiptsEventTypes.MessageReceiptsReceived,
      payload: { connectionId: connection.id, receipts: messageContext.message.receipts },
    })
  }

  processRequestReceipts(messageContext: DidCommInboundMessageContext<RequestReceiptsMessage>): undefined {
    const connection = messageContext.assertReadyConnection()
    this.eventEmitter.emit<RequestReceiptsReceivedEvent>(messageContext.agentContext, {
      type: ReceiptsEventTypes.RequestReceiptsReceived,
      payload: { connectionId: connection.id, requestedReceipts: messageContext.message.requestedReceipts },
    })
  }
}
