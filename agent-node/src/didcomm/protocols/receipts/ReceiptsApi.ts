/** What an agent does with receipts: report the state of messages it got, ask for receipts. */
import { AgentContext, inject, injectable } from '@credo-ts/core'
import { sendOnConnection } from '../../sendOnConnection.ts'
import { MessageReceipt, MessageReceiptsMessage, RequestReceiptsMessage, RequestedReceipt, type ReceiptState } from './messages/index.ts'

/** How long a queued receipt waits for others to the same connection (ms). */
export const RECEIPT_BATCH_WINDOW_MS = 250

/** Most receipts in one queued `message-receipts`. */
const MAX_QUEUED_RECEIPTS = 100

type Receipt = { messageId: string; state: ReceiptState; timestamp?: Date }

@injectable()
export class ReceiptsApi {
  /** Receipts queued per connection, sent together when the window closes. */
  private readonly queued = new Map<string, { receipts: Receipt[]; timer: NodeJS.Timeout }>()
  private readonly sending = new Set<Promise<unknown>>()

  constructor(@inject(AgentContext) private readonly agentContext: AgentContext) {}

  /**
   * Sends `receipt` (timestamp: now unless given) within `RECEIPT_BATCH_WINDOW_MS`, in one
   * `message-receipts` with the others queued for `connectionId` meanwhile: the receipt leaves
   * the hot path of the message it acknowledges, and a burst costs one DIDComm message (one
   * pack here, one unpack at the peer) instead of one per message. A failed send is logged.
   */
  queue(connectionId: string, receipt: Receipt): void {
    const entry = this.queued.get(connectionId)
    const stamped = { ...receipt, timestamp: receipt.timestamp ?? new Date() }
    if (entry) {
      entry.receipts.push(stamped)
      if (entry.receipts.length >= MAX_QUEUED_RECEIPTS) this.sendQueued(connectionId)
      return
    }
    const timer = setTimeout(() => this.sendQueued(connectionId), RECEIPT_BATCH_WINDOW_MS)
    timer.unref()
    this.queued.set(connectionId, { receipts: [stamped], timer })
  }

  /** Sends every queued receipt now. Resolves when every send started so far has settled. */
  async flush(): Promise<void> {
    for (const connectionId of [...this.queued.keys()]) this.sendQueued(connectionId)
    await Promise.all(this.sending)
  }

  private sendQueued(connectionId: string): void {
    const entry = this.queued.get(connectionId)
    if (!entry) return
    this.queued.delete(connectionId)
    clearTimeout(entry.timer)
    const sent = this.send(connectionId, entry.receipts)
      .catch((error: unknown) => {
        const messageIds = entry.receipts.map((receipt) => receipt.messageId)
        this.agentContext.config.logger.warn('could not send receipts', { connectionId, messageIds, error })
      })
      .finally(() => this.sending.delete(sent))
    this.sending.add(sent)
  }

  /** Sends one `message-receipts` with a receipt per entry (timestamp: now unless given). */
  async send(connectionId: string, receipts: Receipt[]): Promise<MessageReceiptsMessage> {
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
