/**
 * `https://didcomm.org/user-profile/1.0/request-profile` (2060.io user profile): asks for the
 * recipient's profile, optionally only the fields named in `query`.
 */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { IsArray, IsOptional, IsString } from 'class-validator'

export class RequestProfileMessage extends DidCommMessage {
  static override readonly type = parseMessageType('https://didcomm.org/user-profile/1.0/request-profile')

  @IsValidMessageType(RequestProfileMessage.type)
  override readonly type = RequestProfileMessage.type.messageTypeUri

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  query?: string[]

  constructor(options?: { id?: string; query?: string[] }) {
    super()
    if (!options) return
    this.id = options.id ?? this.generateId()
    this.query = options.query
  }
}
