import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { MessageReceiptsMessage } from '../messages/index.ts'
import type { ReceiptsService } from '../services/ReceiptsService.ts'

/** Inbound `message-receipts` -> the service. */
export class MessageReceiptsHandler implements DidCommMessageHandler {
  readonly supportedMessages = [MessageReceiptsMessage]

  constructor(private readonly service: ReceiptsService) {}

  async handle(inbound: DidCommMessageHandlerInboundMessage<MessageReceiptsHandler>) {
    this.service.processReceipts(inbound)
    return undefined
  }
}
