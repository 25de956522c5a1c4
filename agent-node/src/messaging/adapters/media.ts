/** `media` in both directions: 2060.io media sharing (`share-media`). */
import { randomUUID } from 'node:crypto'
import { ReceivedMediaItem, type MediaItem } from '@parley/shared'
import { MediaSharingEventTypes, type MediaReceivedEvent, type SharedMediaItem } from '../../didcomm/protocols/media-sharing/index.ts'
import { envelopeThreadId, type MessageReceiver, type MessageSender } from '../contract.ts'

/** Item fields that travel in the descriptor's `metadata` rather than in the attachment. */
const METADATA_FIELDS = ['preview', 'width', 'height', 'duration', 'title', 'icon', 'openingMode', 'screenOrientation'] as const

/** A controller item -> the protocol's item (display hints into `metadata`). */
function toSharedItem(item: MediaItem): SharedMediaItem {
  const metadata = Object.fromEntries(METADATA_FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, item[field]]))
  return {
    id: item.id ?? randomUUID(),
    uri: item.uri,
    mimeType: item.mimeType,
    description: item.description,
    byteCount: item.byteCount,
    fileName: item.filename,
    ciphering: item.ciphering,
    metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
  }
}

/**
 * A received item -> the envelope's item. Fields of the wrong type (a peer's free-form
 * `metadata`) are dropped one by one rather than failing the message.
 */
function toReceivedItem(item: SharedMediaItem): ReceivedMediaItem {
  const shape = ReceivedMediaItem.shape
  const candidate: Record<string, unknown> = {
    ...Object.fromEntries(METADATA_FIELDS.map((field) => [field, item.metadata?.[field]])),
    id: item.id,
    uri: item.uri,
    mimeType: item.mimeType,
    description: item.description,
    byteCount: item.byteCount,
    filename: item.fileName,
    ciphering: item.ciphering,
  }
  const valid = Object.entries(candidate).filter(
    ([field, value]) => value !== undefined && shape[field as keyof typeof shape].safeParse(value).success,
  )
  return ReceivedMediaItem.parse(Object.fromEntries(valid))
}

/** `media` -> `share-media`; `threadId` becomes the parent thread. */
export const sendMedia: MessageSender<'media'> = async (body, context) => {
  const message = context.agent.modules.media.create({
    parentThreadId: body.threadId,
    description: body.description,
    items: body.items.map(toSharedItem),
  })
  await context.sendDidComm(message)
}

/** `share-media` from the peer -> `media` envelopes. */
export const receiveMedia: MessageReceiver = (agent, receive) => {
  agent.events.on<MediaReceivedEvent>(MediaSharingEventTypes.MediaReceived, ({ payload: { connectionId, message, items } }) => {
    receive({
      type: 'media',
      id: message.id,
      connectionId,
      timestamp: Math.floor(message.sentTime.getTime() / 1000),
      threadId: envelopeThreadId(message),
      description: message.description,
      items: items.map(toReceivedItem),
    })
  })
}
