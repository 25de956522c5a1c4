/**
 * Receipts for what we receive: every message a receiver turns into an envelope is acknowledged
 * to its sender with a `received` receipt (2060.io receipts protocol), as the Hologram wallet
 * expects of the agents it talks to.
 */
import { ReceiptState } from '../didcomm/receipts/index.ts'
import type { MessageReceiver } from './contract.ts'

/** `receiver`, plus a `received` receipt to the sender of each message it reports. A failed receipt is logged. */
export function acknowledged(receiver: MessageReceiver): MessageReceiver {
  return (agent, receive) =>
    receiver(agent, (message) => {
      receive(message)
      agent.modules.receipts
        .send(message.connectionId, [{ messageId: message.id, state: ReceiptState.Received }])
        .catch((error: unknown) => {
          agent.config.logger.warn('could not send a receipt', { messageId: message.id, connectionId: message.connectionId, error })
        })
    })
}
