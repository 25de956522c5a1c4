/** `https://didcomm.org/action-menu/1.0/menu` (Aries RFC 0509): the responder's menu. */
import { DidCommMessage, IsValidMessageType, parseMessageType } from '@credo-ts/didcomm'
import { Expose, Type } from 'class-transformer'
import { IsInstance, IsOptional, IsString, ValidateNested } from 'class-validator'
import { ActionMenuOption } from '../models/index.ts'

const MENU = parseMessageType('https://didcomm.org/action-menu/1.0/menu')

export class MenuMessage extends DidCommMessage {
  constructor(options?: { id?: string; title: string; description: string; options: ActionMenuOption[]; threadId?: string }) {
    super()
    if (options) {
      this.id = options.id ?? this.generateId()
      this.title = options.title
      this.description = options.description
      this.options = options.options.map((option) => new ActionMenuOption(option))
      if (options.threadId) this.setThread({ threadId: options.threadId })
    }
  }

  @IsValidMessageType(MENU)
  override readonly type = MENU.messageTypeUri
  static override readonly type = MENU

  @IsString()
  title!: string

  @IsString()
  description!: string

  /** Shown when the previous selection failed. */
  @Expose({ name: 'errormsg' })
  @IsString()
  @IsOptional()
  errorMessage?: string

  @Type(() => ActionMenuOption)
  @ValidateNested({ each: true })
  @IsInstance(ActionMenuOption, { each: true })
  options!: ActionMenuOption[]
}
