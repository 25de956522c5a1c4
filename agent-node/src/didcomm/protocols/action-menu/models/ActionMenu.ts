/**
 * The menu and the selection of Aries RFC 0509, as they travel (`menu`, `perform`) and as the
 * record stores them. Option forms (RFC "form") are not supported: no wallet we serve sends them.
 */
import { Type } from 'class-transformer'
import { IsBoolean, IsInstance, IsOptional, IsString, ValidateNested } from 'class-validator'

/** One option: `name` identifies it in `perform`, `title` and `description` are shown. */
export class ActionMenuOption {
  constructor(options?: { name: string; title: string; description: string; disabled?: boolean }) {
    if (options) {
      this.name = options.name
      this.title = options.title
      this.description = options.description
      this.disabled = options.disabled
    }
  }

  @IsString()
  name!: string

  @IsString()
  title!: string

  @IsString()
  description!: string

  @IsBoolean()
  @IsOptional()
  disabled?: boolean
}

/** A menu: title, description, options with unique names. */
export class ActionMenu {
  constructor(options?: { title: string; description: string; options: ActionMenuOption[] }) {
    if (options) {
      this.title = options.title
      this.description = options.description
      this.options = options.options.map((option) => new ActionMenuOption(option))
    }
  }

  @IsString()
  title!: string

  @IsString()
  description!: string

  @Type(() => ActionMenuOption)
  @ValidateNested({ each: true })
  @IsInstance(ActionMenuOption, { each: true })
  options!: ActionMenuOption[]
}

/** True when `name` is one of `menu`'s options. */
export function menuOffers(menu: ActionMenu, name: string): boolean {
  return menu.options.some((option) => option.name === name)
}

/** The option performed, with its form parameters when it had a form. */
export class ActionMenuSelection {
  constructor(options?: { name: string; params?: Record<string, string> }) {
    if (options) {
      this.name = options.name
      this.params = options.params
    }
  }

  @IsString()
  name!: string

  @IsOptional()
  params?: Record<string, string>
}
