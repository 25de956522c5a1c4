/**
 * `receipts` and `reaction` from the controller -> 2060.io `message-receipts` and
 * `message-reactions` on the connection, each entry naming the user's message by its `@id`;
 * `message-reactions` from the user -> `reaction` envelopes.
 */
import { timestampDate, type Reaction, type Receipt } from '@parley/shared'
import {
  MessageReaction,
  MessageReactionsMessage,
  ReactionAction,
  ReactionsEventTypes,
  type MessageReactionsReceivedEvent,
} from '../../didcomm/protocols/reactions/index.ts'
import { MessageReceipt, MessageReceiptsMessage, ReceiptState } from '../../didcomm/protocols/receipts/index.ts'
import { envelopeThreadId, type MessageReceiver, type MessageSender } from '../contract.ts'

/** The message id an entry names, under whichever name it was given. */
const referenced = (entry: Receipt | Reaction) => (entry.messageId ?? entry.message_id)!

const RECEIPT_STATES: Record<Receipt['state'], ReceiptState> = {
  created: ReceiptState.Created,
  submitted: ReceiptState.Submitted,
  received: ReceiptState.Received,
  viewed: ReceiptState.Viewed,
  deleted: ReceiptState.Deleted,
}

export const sendReceipts: MessageSender<'receipts'> = async (body, context) => {
  const receipts = body.receipts.map(
    (entry) =>
      new MessageReceipt({ messageId: referenced(entry), state: RECEIPT_STATES[entry.state], timestamp: timestampDate(entry.timestamp) }),
  )
  await context.sendDidComm(new MessageReceiptsMessage({ receipts }))
}

export const sendReaction: MessageSender<'reaction'> = async (body, context) => {
  const reactions = body.reactions.map(
    (entry) =>
      new MessageReaction({
        messageId: referenced(entry),
        emoji: entry.emoji,
        action: entry.action === 'react' ? ReactionAction.React : ReactionAction.Unreact,
        timestamp: timestampDate(entry.timestamp),
      }),
  )
  await context.sendDidComm(new MessageReactionsMessage({ reactions }))
}

export const receiveReactions: MessageReceiver = (agent, receive) => {
  agent.events.on<MessageReactionsReceivedEvent>(ReactionsEventTypes.MessageReactionsReceived, ({ payload: { connectionId, message } }) => {
    receive({
      type: 'reaction',
      id: message.id,
      connectionId,
      timestamp: Math.floor(Date.now() / 1000),
      threadId: envelopeThreadId(message),
      reactions: message.reactions.map(({ messageId, emoji, action, timestamp }) => ({
        messageId,
        emoji,
        action,
        timestamp: Math.floor(timestamp.getTime() / 1000),
      })),
    })
  })
}
