/**
 * Receipts for what we receive: every message a receiver turns into an envelope is acknowledged
 * to its sender with a `received` receipt (2060.io receipts protocol), as the Hologram wallet
 * expects of the agents it talks to.
 */
import { ReceiptState } from '../didcomm/protocols/receipts/index.ts'
import type { MessageReceiver } from './contract.ts'

/**
 * `receiver`, plus a `received` receipt to the sender of each message it reports, once its event
 * is stored (a message whose event could not be stored is not acknowledged). The receipt is
 * queued (`ReceiptsApi.queue`: sent within its window, with the others to the same peer), off
 * the message's hot path. A failed receipt is logged.
 */
export function acknowledged(receiver: MessageReceiver): MessageReceiver {
  return (agent, receive) =>
    receiver(agent, (message) =>
      receive(message).then(
        () => agent.modules.receipts.queue(message.connectionId, { messageId: message.id, state: ReceiptState.Received }),
        () => undefined, // not stored: no receipt (the publisher logged the failure)
      ),
    )
}
