/**
 * `https://didcomm.org/reactions/1.0/message-reactions` (2060.io message reactions, as Hologram
 * wallets read them): emoji reactions to messages, each naming its message by DIDComm `@id`
 * (`message_id`), with `react` or `unreact` and a Unix timestamp in seconds. Parley sends them
 * (the controller's `reaction` message); it does not handle received ones yet.
 */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { Expose, Type } from 'class-transformer'
import { ArrayNotEmpty, IsArray, IsDate, IsEnum, IsString, ValidateNested } from 'class-validator'
import { UnixSeconds } from '../../../unix-seconds.ts'

/** What a reaction does to the message's reactions. */
export enum ReactionAction {
  React = 'react',
  Unreact = 'unreact',
}

export class MessageReaction {
  @Expose({ name: 'message_id' })
  @IsString()
  messageId!: string

  @IsString()
  emoji!: string

  @IsEnum(ReactionAction)
  action!: ReactionAction

  /** Unix seconds on the wire. */
  @UnixSeconds()
  @IsDate()
  timestamp!: Date

  constructor(options?: { messageId: string; emoji: string; action: ReactionAction; timestamp?: Date }) {
    if (!options) return
    this.messageId = options.messageId
    this.emoji = options.emoji
    this.action = options.action
    this.timestamp = options.timestamp ?? new Date()
  }
}

export class MessageReactionsMessage extends DidCommMessage {
  static override readonly type = parseMessageType('https://didcomm.org/reactions/1.0/message-reactions')

  @IsValidMessageType(MessageReactionsMessage.type)
  override readonly type = MessageReactionsMessage.type.messageTypeUri

  @IsArray()
  @ArrayNotEmpty()
  @ValidateNested({ each: true })
  @Type(() => MessageReaction)
  reactions!: MessageReaction[]

  constructor(options?: { id?: string; reactions: MessageReaction[] }) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    this.reactions = options.reactions
  }
}
