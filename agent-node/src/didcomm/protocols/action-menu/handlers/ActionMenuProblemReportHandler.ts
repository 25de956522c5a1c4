import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { ActionMenuProblemReportMessage } from '../messages/index.ts'
import type { ActionMenuService } from '../services/ActionMenuService.ts'

/** Requester: the responder refused a perform. */
export class ActionMenuProblemReportHandler implements DidCommMessageHandler {
  supportedMessages = [ActionMenuProblemReportMessage]

  constructor(private readonly service: ActionMenuService) {}

  async handle(messageContext: DidCommMessageHandlerInboundMessage<ActionMenuProblemReportHandler>) {
    await this.service.processProblemReport(messageContext)
    return undefined
  }
}
