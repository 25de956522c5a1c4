import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { PerformMessage } from '../messages/index.ts'
import type { ActionMenuService } from '../services/ActionMenuService.ts'

/** Responder: the requester performed an option. */
export class PerformMessageHandler implements DidCommMessageHandler {
  supportedMessages = [PerformMessage]

  constructor(private readonly service: ActionMenuService) {}

  async handle(messageContext: DidCommMessageHandlerInboundMessage<PerformMessageHandler>) {
    await this.service.processPerform(messageContext)
    return undefined
  }
}
