import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { CALL_MESSAGES } from '../messages/index.ts'
import type { CallsService } from '../services/CallsService.ts'

/** Inbound call-offer / call-accept / call-reject / call-end -> the service (all four are handled alike). */
export class CallMessageHandler implements DidCommMessageHandler {
  readonly supportedMessages = [...CALL_MESSAGES]

  constructor(private readonly service: CallsService) {}

  async handle(inbound: DidCommMessageHandlerInboundMessage<CallMessageHandler>) {
    this.service.processCallMessage(inbound)
    return undefined
  }
}
