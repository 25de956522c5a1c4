/** Media sharing, stateless: builds `share-media` messages and turns received ones into events. */
import { CredoError, EventEmitter, inject, injectable } from '@credo-ts/core'
import type { DidCommInboundMessageContext } from '@credo-ts/didcomm'
import { MediaSharingEventTypes, type MediaReceivedEvent } from '../MediaSharingEvents.ts'
import { ShareMediaMessage, type ShareMediaMessageOptions, type SharedMediaItem } from '../messages/index.ts'

@injectable()
export class MediaSharingService {
  constructor(@inject(EventEmitter) private readonly eventEmitter: EventEmitter) {}

  createShareMedia(options: ShareMediaMessageOptions): ShareMediaMessage {
    return new ShareMediaMessage(options)
  }

  /**
   * Joins each descriptor with its attachment and emits `MediaReceived`.
   * @throws CredoError when a descriptor names no attachment, or the attachment lacks its MIME
   * type or URI (Credo answers the sender with a problem report).
   */
  processShareMedia(messageContext: DidCommInboundMessageContext<ShareMediaMessage>): undefined {
    const { message, agentContext } = messageContext
    const connection = messageContext.assertReadyConnection()
    const items = message.items.map((descriptor): SharedMediaItem => {
      const attachment = message.getAppendedAttachmentById(descriptor.attachmentId)
      if (!attachment) throw new CredoError(`share-media item ${descriptor.id} names a missing attachment '${descriptor.attachmentId}'`)
      const uri = attachment.data.links?.[0]
      if (!attachment.mimeType || !uri) throw new CredoError(`share-media item ${descriptor.id} lacks its MIME type or URI`)
      return {
        id: descriptor.id,
        uri,
        mimeType: attachment.mimeType,
        description: attachment.description,
        byteCount: attachment.byteCount,
        fileName: attachment.filename,
        ciphering: descriptor.ciphering,
        metadata: descriptor.metadata,
      }
    })
    this.eventEmitter.emit<MediaReceivedEvent>(agentContext, {
      type: MediaSharingEventTypes.MediaReceived,
      payload: { connectionId: connection.id, message, items },
    })
  }
}
