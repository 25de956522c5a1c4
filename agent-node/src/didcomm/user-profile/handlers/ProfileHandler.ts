import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { ProfileMessage } from '../messages/index.ts'
import type { UserProfileService } from '../services/UserProfileService.ts'

/** Inbound `profile` -> the service; its answer (our profile, if asked for) goes back. */
export class ProfileHandler implements DidCommMessageHandler {
  readonly supportedMessages = [ProfileMessage]

  constructor(private readonly service: UserProfileService) {}

  async handle(inbound: DidCommMessageHandlerInboundMessage<ProfileHandler>) {
    return this.service.processProfile(inbound)
  }
}
