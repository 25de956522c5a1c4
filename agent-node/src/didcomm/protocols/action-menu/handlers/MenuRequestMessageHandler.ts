import { DidCommOutboundMessageContext, type DidCommMessageHandler, type DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { MenuRequestMessage } from '../messages/index.ts'
import type { ActionMenuService } from '../services/ActionMenuService.ts'

/** Responder: a menu-request; answered with the current menu when there is one. */
export class MenuRequestMessageHandler implements DidCommMessageHandler {
  supportedMessages = [MenuRequestMessage]

  constructor(private readonly service: ActionMenuService) {}

  async handle(messageContext: DidCommMessageHandlerInboundMessage<MenuRequestMessageHandler>) {
    const menu = await this.service.processRequest(messageContext)
    if (!menu) return undefined
    return new DidCommOutboundMessageContext(menu, {
      agentContext: messageContext.agentContext,
      connection: messageContext.assertReadyConnection(),
    })
  }
}
