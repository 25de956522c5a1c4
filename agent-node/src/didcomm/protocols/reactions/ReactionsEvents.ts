/** Events the reactions module emits on the agent's event bus. */
import type { BaseEvent } from '@credo-ts/core'
import type { MessageReactionsMessage } from './messages/MessageReactionsMessage.ts'

export enum ReactionsEventTypes {
  /** A peer reacted to (or unreacted from) messages. */
  MessageReactionsReceived = 'ParleyMessageReactionsReceived',
}

export interface MessageReactionsReceivedEvent extends BaseEvent {
  type: typeof ReactionsEventTypes.MessageReactionsReceived
  payload: { connectionId: string; message: MessageReactionsMessage }
}
