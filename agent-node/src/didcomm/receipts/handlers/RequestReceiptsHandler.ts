import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { RequestReceiptsMessage } from '../messages/index.ts'
import type { ReceiptsService } from '../services/ReceiptsService.ts'

/** Inbound `request-receipts` -> the service. */
export class RequestReceiptsHandler implements DidCommMessageHandler {
  readonly supportedMessages = [RequestReceiptsMessage]

  constructor(private readonly service: ReceiptsService) {}

  async handle(inbound: DidCommMessageHandlerInboundMessage<RequestReceiptsHandler>) {
    this.service.processRequestReceipts(inbound)
    return undefined
  }
}
