/**
 * `https://didcomm.org/media-sharing/1.0/share-media` (2060.io media sharing): shares one or more
 * media items. Each item is an appended attachment (`~attach`: URI in `data.links`, `mime-type`,
 * `byte_count`, `filename`, `description`) plus a descriptor in `items` pointing at it by
 * `attachment_id` and carrying what attachments cannot: `ciphering` and display `metadata`.
 */
import { DateTransformer } from '@credo-ts/core'
import { DidCommAttachment, DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { Expose, Type } from 'class-transformer'
import { ArrayNotEmpty, IsArray, IsDate, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator'

/** How an item's content is encrypted; `parameters` depend on the algorithm. */
export class CipheringInfo {
  @IsString()
  algorithm!: string

  @IsOptional()
  @IsObject()
  parameters?: Record<string, unknown>
}

/** A media item as the protocol describes it, attachment and descriptor joined. */
export interface SharedMediaItem {
  id: string
  uri: string
  mimeType: string
  description?: string
  byteCount?: number
  fileName?: string
  ciphering?: { algorithm: string; parameters?: Record<string, unknown> }
  /** Display hints (preview, width, height, duration, title, icon, ...). */
  metadata?: Record<string, unknown>
}

/** The `items` entry naming one attachment. */
export class SharedMediaItemDescriptor {
  @Expose({ name: '@id' })
  @IsString()
  id!: string

  @Expose({ name: 'attachment_id' })
  @IsString()
  attachmentId!: string

  @IsOptional()
  @ValidateNested()
  @Type(() => CipheringInfo)
  ciphering?: CipheringInfo

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>
}

export interface ShareMediaMessageOptions {
  id?: string
  /** Thread this share answers or belongs to (`~thread.pthid`). */
  parentThreadId?: string
  description?: string
  items: SharedMediaItem[]
}

export class ShareMediaMessage extends DidCommMessage {
  static override readonly type = parseMessageType('https://didcomm.org/media-sharing/1.0/share-media')

  @IsValidMessageType(ShareMediaMessage.type)
  override readonly type = ShareMediaMessage.type.messageTypeUri

  @IsOptional()
  @IsString()
  description?: string

  @Expose({ name: 'sent_time' })
  @DateTransformer()
  @IsDate()
  sentTime!: Date

  @IsArray()
  @ArrayNotEmpty()
  @ValidateNested({ each: true })
  @Type(() => SharedMediaItemDescriptor)
  items!: SharedMediaItemDescriptor[]

  constructor(options?: ShareMediaMessageOptions) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    if (options.parentThreadId) this.setThread({ parentThreadId: options.parentThreadId })
    this.sentTime = new Date()
    this.description = options.description
    this.items = options.items.map((item, index) => {
      const attachmentId = String(index)
      this.addAppendedAttachment(
        new DidCommAttachment({
          id: attachmentId,
          mimeType: item.mimeType,
          filename: item.fileName,
          byteCount: item.byteCount,
          description: item.description,
          data: { links: [item.uri] },
        }),
      )
      return Object.assign(new SharedMediaItemDescriptor(), {
        id: item.id,
        attachmentId,
        ciphering: item.ciphering,
        metadata: item.metadata,
      })
    })
  }
}
