/** Events the calls module emits on the agent's event bus. */
import type { BaseEvent } from '@credo-ts/core'
import type { CallMessage } from './messages/index.ts'

export enum CallsEventTypes {
  /** A peer sent a call-offer, call-accept, call-reject or call-end. */
  CallMessageReceived = 'ParleyCallMessageReceived',
}

export interface CallMessageReceivedEvent extends BaseEvent {
  type: typeof CallsEventTypes.CallMessageReceived
  payload: { connectionId: string; message: CallMessage }
}
