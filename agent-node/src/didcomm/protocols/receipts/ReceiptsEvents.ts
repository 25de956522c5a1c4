/** Events the receipts module emits on the agent's event bus. */
import type { BaseEvent } from '@credo-ts/core'
import type { MessageReceipt, RequestedReceipt } from './messages/index.ts'

export enum ReceiptsEventTypes {
  /** A peer reported the state of messages we sent. */
  MessageReceiptsReceived = 'ParleyMessageReceiptsReceived',
  /** A peer asked for receipts of the messages it sends us. */
  RequestReceiptsReceived = 'ParleyRequestReceiptsReceived',
}

export interface MessageReceiptsReceivedEvent extends BaseEvent {
  type: typeof ReceiptsEventTypes.MessageReceiptsReceived
  payload: { connectionId: string; receipts: MessageReceipt[] }
}

export interface RequestReceiptsReceivedEvent extends BaseEvent {
  type: typeof ReceiptsEventTypes.RequestReceiptsReceived
  payload: { connectionId: string; requestedReceipts: RequestedReceipt[] }
}
