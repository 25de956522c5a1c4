/**
 * One record per connection and role: the current menu (offered or shown), where the walk of
 * RFC 0509 stands, and the last option performed. A responder answers a `menu-request` from it.
 */
import { BaseRecord, CredoError, utils } from '@credo-ts/core'
import { Type } from 'class-transformer'
import { ActionMenu, ActionMenuSelection, type ActionMenuRole, type ActionMenuState } from '../models/index.ts'

export type ActionMenuTags = { connectionId: string; role: ActionMenuRole; threadId: string }

export interface ActionMenuRecordProps {
  connectionId: string
  role: ActionMenuRole
  state: ActionMenuState
  threadId: string
  menu?: ActionMenu
}

export class ActionMenuRecord extends BaseRecord<ActionMenuTags> {
  static override readonly type = 'ParleyActionMenuRecord'
  override readonly type = ActionMenuRecord.type

  connectionId!: string
  role!: ActionMenuRole
  state!: ActionMenuState
  /** Thread of the current menu walk (the menu-request's, else the menu's). */
  threadId!: string

  @Type(() => ActionMenu)
  menu?: ActionMenu

  @Type(() => ActionMenuSelection)
  performedAction?: ActionMenuSelection

  constructor(props?: ActionMenuRecordProps) {
    super()
    if (props) {
      this.id = utils.uuid()
      this.createdAt = new Date()
      this.connectionId = props.connectionId
      this.role = props.role
      this.state = props.state
      this.threadId = props.threadId
      this.menu = props.menu
    }
  }

  getTags(): ActionMenuTags {
    return { ...this._tags, connectionId: this.connectionId, role: this.role, threadId: this.threadId }
  }

  /** @throws CredoError unless the record is in one of `states`. */
  assertState(...states: ActionMenuState[]): void {
    if (!states.includes(this.state)) throw new CredoError(`action menu is in state ${this.state}; expected ${states.join(' or ')}`)
  }
}
