/** `profile` in both directions: 2060.io user profile (`profile`). Pictures are URLs here, attachments on the wire. */
import type { ProfileMessageEnvelope } from '@parley/shared'
import {
  UserProfileEventTypes,
  type PictureData,
  type ProfileReceivedEvent,
  type UserProfileData,
} from '../../didcomm/protocols/user-profile/index.ts'
import { envelopeThreadId, type MessageReceiver, type MessageSender } from '../contract.ts'

/** `data:<mime>[;param...][;base64],<data>` (RFC 2397). */
const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*?)(;base64)?,(.*)$/s

/** A picture URL -> picture data: a data URL goes inline (base64), any other URL by reference. */
export function pictureFromUrl(url: string): PictureData {
  const match = DATA_URL.exec(url)
  if (!match) return { links: [url] }
  const [, mimeType, , base64, data = ''] = match
  return { mimeType: mimeType || undefined, base64: base64 ? data : Buffer.from(decodeURIComponent(data)).toString('base64') }
}

/** Picture data -> a URL: inline data becomes a data URL, a reference its first link. */
export function pictureToUrl(picture: PictureData): string | undefined {
  if (picture.base64) return `data:${picture.mimeType ?? 'application/octet-stream'};base64,${picture.base64}`
  return picture.links?.[0]
}

/** A picture field of a body (URL, `null` to clear, absent) -> the protocol's. */
const toPicture = (url: string | null | undefined) => (url === undefined || url === null ? url : pictureFromUrl(url))
/** A received picture (data, `null` when cleared, absent) -> the envelope's URL. */
const toUrl = (picture: PictureData | null | undefined) => (picture === undefined || picture === null ? picture : pictureToUrl(picture))

/** `profile` -> user-profile `profile`; `threadId` becomes the parent thread. */
export const sendProfile: MessageSender<'profile'> = async (body, context) => {
  const profile: UserProfileData = {
    displayName: body.displayName,
    displayPicture: toPicture(body.displayImageUrl),
    displayIcon: toPicture(body.displayIconUrl),
    description: body.description,
    preferredLanguage: body.preferredLanguage,
  }
  await context.sendDidComm(context.agent.modules.userProfile.create({ profile, parentThreadId: body.threadId }))
}

/**
 * `profile` from the peer -> `profile` envelopes: the fields it sent. The protocol has no send
 * time, so `timestamp` is when the agent processed it.
 */
export const receiveProfile: MessageReceiver = (agent, receive) => {
  agent.events.on<ProfileReceivedEvent>(UserProfileEventTypes.ProfileReceived, ({ payload: { connectionId, message, profile } }) => {
    const envelope: ProfileMessageEnvelope = {
      type: 'profile',
      id: message.id,
      connectionId,
      timestamp: Math.floor(Date.now() / 1000),
      threadId: envelopeThreadId(message),
      displayName: profile.displayName,
      displayImageUrl: toUrl(profile.displayPicture),
      displayIconUrl: toUrl(profile.displayIcon),
      description: profile.description,
      preferredLanguage: profile.preferredLanguage,
    }
    receive(envelope)
  })
}
