/** Events the media-sharing module emits on the agent's event bus. */
import type { BaseEvent } from '@credo-ts/core'
import type { ShareMediaMessage, SharedMediaItem } from './messages/index.ts'

export enum MediaSharingEventTypes {
  /** A peer shared media with us. */
  MediaReceived = 'ParleyMediaReceived',
}

/** `items` are the message's attachments and descriptors joined, in the order sent. */
export interface MediaReceivedEvent extends BaseEvent {
  type: typeof MediaSharingEventTypes.MediaReceived
  payload: { connectionId: string; message: ShareMediaMessage; items: SharedMediaItem[] }
}
