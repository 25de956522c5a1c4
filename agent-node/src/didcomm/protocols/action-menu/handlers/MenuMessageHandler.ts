import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { MenuMessage } from '../messages/index.ts'
import type { ActionMenuService } from '../services/ActionMenuService.ts'

/** Requester: a menu from the responder. */
export class MenuMessageHandler implements DidCommMessageHandler {
  supportedMessages = [MenuMessage]

  constructor(private readonly service: ActionMenuService) {}

  async handle(messageContext: DidCommMessageHandlerInboundMessage<MenuMessageHandler>) {
    await this.service.processMenu(messageContext)
    return undefined
  }
}
