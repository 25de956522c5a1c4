import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { MRTD_MESSAGES } from '../messages/index.ts'
import type { MrtdService } from '../services/MrtdService.ts'

/** Inbound MRTD messages (requests, data, problem reports) -> the service (all handled alike). */
export class MrtdMessageHandler implements DidCommMessageHandler {
  readonly supportedMessages = [...MRTD_MESSAGES]

  constructor(private readonly service: MrtdService) {}

  async handle(inbound: DidCommMessageHandlerInboundMessage<MrtdMessageHandler>) {
    this.service.processMrtdMessage(inbound)
    return undefined
  }
}
