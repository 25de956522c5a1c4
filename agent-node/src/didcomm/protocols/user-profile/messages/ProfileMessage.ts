/**
 * `https://didcomm.org/user-profile/1.0/profile` (2060.io user profile): the sender's profile.
 * Pictures travel as appended attachments with ids `displayPicture` / `displayIcon`; the profile
 * object then holds `#displayPicture` / `#displayIcon` in their place (or `null`/`''` to clear
 * them). `send_back_yours` asks the recipient to answer with its own profile.
 */
import { DidCommAttachment, DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { Expose } from 'class-transformer'
import { IsBoolean, IsObject, IsOptional } from 'class-validator'
import type { PictureData, UserProfileData } from '../models/UserProfile.ts'

const PICTURES = ['displayPicture', 'displayIcon'] as const

export interface ProfileMessageOptions {
  id?: string
  profile: UserProfileData
  /** The `request-profile` (or `profile`) this answers. */
  threadId?: string
  parentThreadId?: string
  sendBackYours?: boolean
}

export class ProfileMessage extends DidCommMessage {
  static override readonly type = parseMessageType('https://didcomm.org/user-profile/1.0/profile')

  @IsValidMessageType(ProfileMessage.type)
  override readonly type = ProfileMessage.type.messageTypeUri

  /** The profile fields, pictures replaced by attachment references. */
  @IsObject()
  profile!: Record<string, unknown>

  @Expose({ name: 'send_back_yours' })
  @IsOptional()
  @IsBoolean()
  sendBackYours?: boolean

  constructor(options?: ProfileMessageOptions) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    if (options.threadId || options.parentThreadId) this.setThread({ threadId: options.threadId, parentThreadId: options.parentThreadId })
    this.profile = { ...options.profile }
    for (const key of PICTURES) {
      const picture = options.profile[key]
      if (!picture) continue
      this.profile[key] = `#${key}`
      this.addAppendedAttachment(
        new DidCommAttachment({ id: key, mimeType: picture.mimeType, data: { base64: picture.base64, links: picture.links } }),
      )
    }
    if (options.sendBackYours) this.sendBackYours = true
  }

  /**
   * The profile with pictures resolved from their attachments: a referenced picture whose
   * attachment is missing is left out; `null` or `''` becomes `null` (cleared).
   */
  get profileData(): UserProfileData {
    const { displayName, description, preferredLanguage } = this.profile
    const data: UserProfileData = {}
    if (typeof displayName === 'string' || displayName === null) data.displayName = displayName
    if (typeof description === 'string' || description === null) data.description = description
    if (typeof preferredLanguage === 'string' || preferredLanguage === null) data.preferredLanguage = preferredLanguage
    for (const key of PICTURES) {
      const value = this.profile[key]
      if (value === null || value === '') data[key] = null
      else if (value !== undefined) {
        const picture = this.pictureAttachment(key)
        if (picture) data[key] = picture
      }
    }
    return data
  }

  private pictureAttachment(id: string): PictureData | undefined {
    const attachment = this.getAppendedAttachmentById(id)
    if (!attachment || (!attachment.data.base64 && !attachment.data.links?.length)) return undefined
    return { mimeType: attachment.mimeType, base64: attachment.data.base64, links: attachment.data.links }
  }
}
