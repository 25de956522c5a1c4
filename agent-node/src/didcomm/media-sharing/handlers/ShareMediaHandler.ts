import type { DidCommMessageHandler, DidCommMessageHandlerInboundMessage } from '@credo-ts/didcomm'
import { ShareMediaMessage } from '../messages/index.ts'
import type { MediaSharingService } from '../services/MediaSharingService.ts'

/** Inbound `share-media` -> the service. */
export class ShareMediaHandler implements DidCommMessageHandler {
  readonly supportedMessages = [ShareMediaMessage]

  constructor(private readonly service: MediaSharingService) {}

  async handle(inbound: DidCommMessageHandlerInboundMessage<ShareMediaHandler>) {
    this.service.processShareMedia(inbound)
    return undefined
  }
}
