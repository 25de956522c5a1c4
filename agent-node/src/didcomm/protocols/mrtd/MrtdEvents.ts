/** Events the MRTD module emits on the agent's event bus. */
import type { BaseEvent } from '@credo-ts/core'
import type { MrtdMessage } from './messages/index.ts'

export enum MrtdEventTypes {
  /** A peer sent an MRTD request, MRZ or eMRTD data, or a problem report. */
  MrtdMessageReceived = 'ParleyMrtdMessageReceived',
}

export interface MrtdMessageReceivedEvent extends BaseEvent {
  type: typeof MrtdEventTypes.MrtdMessageReceived
  payload: { connectionId: string; message: MrtdMessage }
}
