/** Events of the action-menu module. */
import type { BaseEvent } from '@credo-ts/core'
import type { DidCommMessage } from '@credo-ts/didcomm'
import type { ActionMenuState } from './models/index.ts'
import type { ActionMenuRecord } from './repository/index.ts'

export enum ActionMenuEventTypes {
  ActionMenuStateChanged = 'ParleyActionMenuStateChanged',
}

/**
 * A menu record changed state. `message` is the peer's message that moved it (menu,
 * menu-request, perform, problem report), absent when this agent moved it.
 */
export interface ActionMenuStateChangedEvent extends BaseEvent {
  type: typeof ActionMenuEventTypes.ActionMenuStateChanged
  payload: {
    actionMenuRecord: ActionMenuRecord
    previousState: ActionMenuState | null
    message?: DidCommMessage
  }
}
