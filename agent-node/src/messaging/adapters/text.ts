/** `text` in both directions: Aries RFC 0095 basic message. */
import {
  DidCommBasicMessage,
  DidCommBasicMessageEventTypes,
  DidCommBasicMessageRecord,
  DidCommBasicMessageRole,
  type DidCommBasicMessageStateChangedEvent,
} from '@credo-ts/didcomm'
import { MAX_TEXT_CHARS, type TextMessageEnvelope } from '@parley/shared'
import { envelopeThreadId, type MessageReceiver, type MessageRecovery, type MessageSender } from '../contract.ts'

/** `text` -> basic message; `threadId` becomes the parent thread. */
export const sendText: MessageSender<'text'> = async (body, context) => {
  const message = new DidCommBasicMessage({ content: body.content })
  if (body.threadId) message.setThread({ parentThreadId: body.threadId })
  await context.sendDidComm(message)
}

/**
 * Basic messages from the peer -> `text` envelopes. One longer than `MAX_TEXT_CHARS` is dropped
 * with a warning: no controller or conversation could store it.
 */
export const receiveText: MessageReceiver = (agent, receive) => {
  agent.events.on<DidCommBasicMessageStateChangedEvent>(DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged, ({ payload }) => {
    const { message, basicMessageRecord: record } = payload
    if (record.role !== DidCommBasicMessageRole.Receiver) return
    if (message.content.length > MAX_TEXT_CHARS) {
      agent.config.logger.warn(`text dropped: ${message.content.length} characters, more than the ${MAX_TEXT_CHARS} Parley carries`, {
        connectionId: record.connectionId,
        messageId: message.id,
      })
      return
    }
    receive({
      type: 'text',
      id: message.id,
      connectionId: record.connectionId,
      timestamp: Math.floor(message.sentTime.getTime() / 1000),
      threadId: envelopeThreadId(message),
      content: message.content,
    })
  })
}

/**
 * The `text` envelopes of the basic messages received and changed after `changedAfter`, rebuilt from Credo's records (which it
 * saves before it emits the event `receiveText` follows). A record keeps the message's thread
 * id, which is its `@id` unless the sender set an explicit thread; `threadId` is rebuilt from the
 * parent thread.
 */
export const recoverText: MessageRecovery = async (agent, storage, changedAfter) => {
  const records = await storage.findUpdatedAfter(
    agent.context,
    DidCommBasicMessageRecord,
    { role: DidCommBasicMessageRole.Receiver },
    changedAfter,
  )
  return records.flatMap((record) =>
    record.threadId
      ? [
          {
            createdAt: record.createdAt.getTime(),
            message: {
              type: 'text' as const,
              id: record.threadId,
              connectionId: record.connectionId,
              timestamp: Math.floor(new Date(record.sentTime).getTime() / 1000),
              threadId: record.parentThreadId ?? null,
              content: record.content,
            } satisfies TextMessageEnvelope,
          },
        ]
      : [],
  )
}
