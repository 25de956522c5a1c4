/**
 * The contract between the message registry and each message type's module (`types/*.ts`): what
 * a sender gets and returns, what a receiver subscribes with.
 */
import type { DidCommConnectionRecord, DidCommMessage } from '@credo-ts/didcomm'
import type { MessageEnvelope, SendMessageBody, SendMessageType } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { DrizzleStorageService } from '../wallet/storage/index.ts'

/** What a sender gets besides the body: the agent, the (completed) connection, Parley's message id. */
export interface SendContext {
  agent: DidcommAgent
  connection: DidCommConnectionRecord
  /** The id `POST /v1/message` returned; receipts and events name the message by it. */
  messageId: string
  /**
   * Sends `message` on the connection with its `@id` set to `messageId`.
   * Resolves once the transport took it (or queued it for pickup); rejects when it cannot be sent.
   */
  sendDidComm(message: DidCommMessage): Promise<void>
}

/**
 * Sends one `POST /v1/message` body of type `T`. Resolves when the message left (state `sent`);
 * rejects when it could not be sent (state `errored`).
 */
export type MessageSender<T extends SendMessageType> = (body: Extract<SendMessageBody, { type: T }>, context: SendContext) => Promise<void>

/**
 * Subscribes to `agent`'s events for one protocol and calls `receive` with the envelope of every
 * message a peer sends on it. `receive` resolves once the envelope's event is stored and rejects
 * when it could not be (the publisher logs that).
 */
export type MessageReceiver = (agent: DidcommAgent, receive: (message: MessageEnvelope) => Promise<unknown>) => void

/**
 * Lists the envelopes of the messages of one protocol that `agent`'s storage holds as received,
 * of the records changed after `changedAfter` (`storage.findUpdatedAfter`), each with its record's
 * creation time (ms since the epoch), for the start-up recovery of a `message-received` a crash
 * lost (`received.ts`). A protocol whose messages leave no record has none: the inbox keeps its
 * envelopes until their events are stored (`didcomm/inbox/InboundInbox.ts`).
 */
export type MessageRecovery = (
  agent: DidcommAgent,
  storage: DrizzleStorageService,
  changedAfter: Date,
) => Promise<Array<{ message: MessageEnvelope; createdAt: number }>>

/** The thread id an envelope reports: the message's thread, else its parent thread, else null. */
export function envelopeThreadId(message: DidCommMessage): string | null {
  return message.thread?.threadId ?? message.thread?.parentThreadId ?? null
}
