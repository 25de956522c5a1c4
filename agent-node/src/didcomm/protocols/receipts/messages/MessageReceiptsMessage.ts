/**
 * `https://didcomm.org/receipts/1.0/message-receipts` (2060.io receipts): the state of messages
 * the recipient got, each named by its DIDComm `@id` (`message_id`), with a state and a Unix
 * timestamp in seconds.
 */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { Expose, Type } from 'class-transformer'
import { ArrayNotEmpty, IsArray, IsDate, IsEnum, IsString, ValidateNested } from 'class-validator'
import { UnixSeconds } from '../../../unix-seconds.ts'

/** Receipt states of the protocol, in the order a message lives through them. */
export enum ReceiptState {
  Created = 'created',
  Submitted = 'submitted',
  Received = 'received',
  Viewed = 'viewed',
  Deleted = 'deleted',
}

export class MessageReceipt {
  @Expose({ name: 'message_id' })
  @IsString()
  messageId!: string

  @IsEnum(ReceiptState)
  state!: ReceiptState

  /** Unix seconds on the wire. */
  @UnixSeconds()
  @IsDate()
  timestamp!: Date

  constructor(options?: { messageId: string; state: ReceiptState; timestamp?: Date }) {
    if (!options) return
    this.messageId = options.messageId
    this.state = options.state
    this.timestamp = options.timestamp ?? new Date()
  }
}

export class MessageReceiptsMessage extends DidCommMessage {
  static override readonly type = parseMessageType('https://didcomm.org/receipts/1.0/message-receipts')

  @IsValidMessageType(MessageReceiptsMessage.type)
  override readonly type = MessageReceiptsMessage.type.messageTypeUri

  @IsArray()
  @ArrayNotEmpty()
  @ValidateNested({ each: true })
  @Type(() => MessageReceipt)
  receipts!: MessageReceipt[]

  constructor(options?: { id?: string; receipts: MessageReceipt[] }) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    this.receipts = options.receipts
  }
}
