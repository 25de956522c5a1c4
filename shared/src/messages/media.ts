/**
 * `media`: images, files, audio and video, both directions. On the wire it is 2060.io's
 * media-sharing 1.0 `share-media` message: each item is an attachment carrying the URI (`links`),
 * MIME type, size and file name, plus a descriptor with the ciphering info and the display
 * metadata (preview, dimensions, duration...). Field names follow 2060.io's service agent.
 */
import { z } from 'zod'
import { urlField } from '../url.ts'
import { boundedName, MessageEnvelopeBase, SendMessageBase } from './common.ts'

/** How an item's content is encrypted (the wallet decrypts it after download); `parameters` depend on the algorithm. */
export const CipheringInfo = z.strictObject({
  algorithm: z.string().min(1),
  parameters: z.record(z.string(), z.unknown()).optional(),
})
export type CipheringInfo = z.infer<typeof CipheringInfo>

/** Display hints of a media item; all optional. Sizes in pixels, `duration` in seconds. */
const MediaItemDisplay = z.strictObject({
  description: z.string().optional(),
  filename: z.string().min(1).optional(),
  /** Size of the (possibly encrypted) content in bytes. */
  byteCount: z.number().int().nonnegative().optional(),
  /** A small preview: a data URL or base64 thumbnail. */
  preview: z.string().optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  duration: z.number().nonnegative().optional(),
  title: z.string().optional(),
  icon: z.string().optional(),
  openingMode: z.string().optional(),
  screenOrientation: z.string().optional(),
  ciphering: CipheringInfo.optional(),
})

/** One item the controller sends: `uri` is where the wallet downloads it (http(s) or a data URL). */
export const MediaItem = MediaItemDisplay.extend({
  /** Item id; generated when omitted. */
  id: boundedName(256).optional(),
  uri: urlField(/^(https?|data)$/, 'http(s):// or data:'),
  mimeType: z.string().regex(/^[\w.+-]+\/[\w.+-]+/, 'a MIME type such as image/png'),
})
export type MediaItem = z.infer<typeof MediaItem>

/** `type: media` sent by the controller: one or more items and an optional caption. */
export const MediaMessageBody = SendMessageBase.extend({
  type: z.literal('media'),
  description: z.string().optional(),
  items: z.array(MediaItem).min(1).max(100),
})
export type MediaMessageBody = z.infer<typeof MediaMessageBody>

/** An item received from the user; `uri` is reported as the wallet sent it. */
export const ReceivedMediaItem = MediaItemDisplay.extend({
  id: z.string(),
  uri: z.string(),
  mimeType: z.string(),
})
export type ReceivedMediaItem = z.infer<typeof ReceivedMediaItem>

/** `type: media` received from the user. */
export const MediaMessageEnvelope = MessageEnvelopeBase.extend({
  type: z.literal('media'),
  description: z.string().optional(),
  items: z.array(ReceivedMediaItem),
})
export type MediaMessageEnvelope = z.infer<typeof MediaMessageEnvelope>
