/** What an agent does with receipts: report the state of messages it got, ask for receipts. */
import { AgentContext, inject, injectable } from '@credo-ts/core'
import { sendOnConnection } from '../sendOnConnection.ts'
import { MessageReceipt, MessageReceiptsMessage, RequestReceiptsMessage, RequestedReceipt, type ReceiptState } from './messages/index.ts'

@injectable()
export class ReceiptsApi {
  constructor(@inject(AgentContext) private readonly agentContext: AgentContext) {}

  /** Sends one `message-receipts` with a receipt per entry (timestamp: now unless given). */
  async send(
    connectionId: string,
    receipts: { messageId: string; state: ReceiptState; timestamp?: Date }[],
  ): Promise<MessageReceiptsMessage> {
    const message = new MessageReceiptsMessage({ receipts: receipts.map((receipt) => new MessageReceipt(receipt)) })
    await sendOnConnection(this.agentContext, connectionId, message)
    return message
  }

  /** Asks the peer for receipts of the messages of `messageTypes` it sends us. */
  async request(connectionId: string, requested: { messageType: string; states?: ReceiptState[] }[]): Promise<RequestReceiptsMessage> {
    const message = new RequestReceiptsMessage({ requestedReceipts: requested.map((entry) => new RequestedReceipt(entry)) })
    await sendOnConnection(this.agentContext, connectionId, message)
    return message
  }
}
