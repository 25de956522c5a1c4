/** What an agent does with media sharing: share items on a connection. */
import { AgentContext, inject, injectable } from '@credo-ts/core'
import { sendOnConnection } from '../../sendOnConnection.ts'
import type { ShareMediaMessage, ShareMediaMessageOptions } from './messages/index.ts'
import { MediaSharingService } from './services/MediaSharingService.ts'

@injectable()
export class MediaSharingApi {
  constructor(
    @inject(AgentContext) private readonly agentContext: AgentContext,
    @inject(MediaSharingService) private readonly service: MediaSharingService,
  ) {}

  /** Builds a `share-media` message without sending it (for senders that send it themselves). */
  create(options: ShareMediaMessageOptions): ShareMediaMessage {
    return this.service.createShareMedia(options)
  }

  /** Shares `options.items` on `connectionId`. @returns the message sent. */
  async share(connectionId: string, options: ShareMediaMessageOptions): Promise<ShareMediaMessage> {
    const message = this.service.createShareMedia(options)
    await sendOnConnection(this.agentContext, connectionId, message)
    return message
  }
}
