/**
 * Message types the controller can send, as a registry `type -> sender` (STYLE.md: a new type is
 * one new entry, never another branch in a long if/else). Each sender builds the DIDComm message
 * for its protocol and gives it Parley's message id, so later receipts can name it.
 */
import type { SendMessageBody } from '@parley/shared'
import { DidCommBasicMessage, type DidCommMessage } from '@credo-ts/didcomm'

type BodyOf<T extends SendMessageBody['type']> = Extract<SendMessageBody, { type: T }>

/** Builds the DIDComm message for one `POST /v1/message` body. */
export type MessageBuilder<T extends SendMessageBody['type']> = (body: BodyOf<T>) => DidCommMessage

export const messageBuilders: { [T in SendMessageBody['type']]: MessageBuilder<T> } = {
  /** `text` -> Aries RFC 0095 basic message; `threadId` becomes the parent thread. */
  text: (body) => {
    const message = new DidCommBasicMessage({ content: body.content })
    if (body.threadId) message.setThread({ parentThreadId: body.threadId })
    return message
  },
}

/** The DIDComm message for `body`, carrying `messageId` as its `@id`. */
export function buildMessage(body: SendMessageBody, messageId: string): DidCommMessage {
  const build = messageBuilders[body.type] as MessageBuilder<typeof body.type>
  const message = build(body)
  message.id = messageId
  return message
}
