import { messageHandler } from '../../../messageHandler.ts'
import { ShareMediaMessage } from '../messages/index.ts'
import type { MediaSharingService } from '../services/MediaSharingService.ts'

/** Inbound `share-media` -> the service. */
export const shareMediaHandler = (service: MediaSharingService) =>
  messageHandler([ShareMediaMessage], (inbound) => service.processShareMedia(inbound))
