/**
 * `https://didcomm.org/calls/1.0/call-offer` (2060.io calls): offers a call. `parameters` is the
 * WebRTC signalling payload (opaque here); the offer's `@id` is the call's thread.
 */
import { DateTransformer } from '@credo-ts/core'
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { Expose } from 'class-transformer'
import { IsDate, IsObject, IsOptional, IsString } from 'class-validator'

export interface CallOfferMessageOptions {
  id?: string
  /** Thread the offer belongs to (`~thread.pthid`), e.g. a conversation topic. */
  parentThreadId?: string
  /** `audio`, `video` or `service`. */
  callType: string
  offerExpirationTime?: Date
  offerStartTime?: Date
  description?: string
  parameters: Record<string, unknown>
}

export class CallOfferMessage extends DidCommMessage {
  static override readonly type = parseMessageType('https://didcomm.org/calls/1.0/call-offer')

  @IsValidMessageType(CallOfferMessage.type)
  override readonly type = CallOfferMessage.type.messageTypeUri

  @Expose({ name: 'call_type' })
  @IsString()
  callType!: string

  @Expose({ name: 'offer_expiration_time' })
  @IsOptional()
  @DateTransformer()
  @IsDate()
  offerExpirationTime?: Date

  @Expose({ name: 'offer_start_time' })
  @IsOptional()
  @DateTransformer()
  @IsDate()
  offerStartTime?: Date

  @IsOptional()
  @IsString()
  description?: string

  @IsObject()
  parameters!: Record<string, unknown>

  constructor(options?: CallOfferMessageOptions) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    if (options.parentThreadId) this.setThread({ parentThreadId: options.parentThreadId })
    this.callType = options.callType
    this.offerExpirationTime = options.offerExpirationTime
    this.offerStartTime = options.offerStartTime
    this.description = options.description
    this.parameters = options.parameters
  }
}
