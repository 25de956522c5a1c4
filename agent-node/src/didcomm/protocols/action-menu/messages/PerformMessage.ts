/** `https://didcomm.org/action-menu/1.0/perform` (Aries RFC 0509): the requester picked an option, on the menu's thread. */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { IsOptional, IsString } from 'class-validator'

const PERFORM = parseMessageType('https://didcomm.org/action-menu/1.0/perform')

export class PerformMessage extends DidCommMessage {
  constructor(options?: { id?: string; name: string; params?: Record<string, string>; threadId: string }) {
    super()
    if (options) {
      this.id = options.id ?? this.generateId()
      this.name = options.name
      this.params = options.params
      this.setThread({ threadId: options.threadId })
    }
  }

  @IsValidMessageType(PERFORM)
  override readonly type = PERFORM.messageTypeUri
  static override readonly type = PERFORM

  /** The option's `name`. */
  @IsString()
  name!: string

  @IsOptional()
  params?: Record<string, string>
}
