/**
 * `https://didcomm.org/receipts/1.0/request-receipts` (2060.io receipts): asks the peer to send
 * receipts for messages of the given types (`message_type`, optionally only some `states`).
 */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { Expose, Type } from 'class-transformer'
import { IsArray, IsEnum, IsOptional, IsString, ValidateNested } from 'class-validator'
import { ReceiptState } from './MessageReceiptsMessage.ts'

export class RequestedReceipt {
  @Expose({ name: 'message_type' })
  @IsString()
  messageType!: string

  @IsOptional()
  @IsArray()
  @IsEnum(ReceiptState, { each: true })
  states?: ReceiptState[]

  constructor(options?: { messageType: string; states?: ReceiptState[] }) {
    if (!options) return
    this.messageType = options.messageType
    this.states = options.states
  }
}

export class RequestReceiptsMessage extends DidCommMessage {
  static override readonly type = parseMessageType('https://didcomm.org/receipts/1.0/request-receipts')

  @IsValidMessageType(RequestReceiptsMessage.type)
  override readonly type = RequestReceiptsMessage.type.messageTypeUri

  @Expose({ name: 'requested_receipts' })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => RequestedReceipt)
  requestedReceipts!: RequestedReceipt[]

  constructor(options?: { id?: string; requestedReceipts: RequestedReceipt[] }) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    this.requestedReceipts = options.requestedReceipts
  }
}
