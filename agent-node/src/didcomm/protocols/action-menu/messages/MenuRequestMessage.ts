/** `https://didcomm.org/action-menu/1.0/menu-request` (Aries RFC 0509): the requester asks for the menu. */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'

const MENU_REQUEST = parseMessageType('https://didcomm.org/action-menu/1.0/menu-request')

export class MenuRequestMessage extends DidCommMessage {
  constructor(options?: { id?: string }) {
    super()
    if (options) this.id = options.id ?? this.generateId()
  }

  @IsValidMessageType(MENU_REQUEST)
  override readonly type = MENU_REQUEST.messageTypeUri
  static override readonly type = MENU_REQUEST
}
