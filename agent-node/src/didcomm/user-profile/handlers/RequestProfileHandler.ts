import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { RequestProfileMessage } from '../messages/index.ts'
import type { UserProfileService } from '../services/UserProfileService.ts'

/** Inbound `request-profile` -> the service; its answer (our profile) goes back. */
export class RequestProfileHandler implements DidCommMessageHandler {
  readonly supportedMessages = [RequestProfileMessage]

  constructor(private readonly service: UserProfileService) {}

  async handle(inbound: DidCommMessageHandlerInboundMessage<RequestProfileHandler>) {
    return this.service.processRequestProfile(inbound)
  }
}
