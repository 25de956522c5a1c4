/** What an agent does with receipts: report the state of messages it got, ask for receipts. */
import { type EventLoopUtilization, performance } from 'node:perf_hooks'
import { AgentContext, inject, injectable } from '@credo-ts/core'
import { sendOnConnection } from '../../sendOnConnection.ts'
import { MessageReceipt, MessageReceiptsMessage, RequestReceiptsMessage, RequestedReceipt, type ReceiptState } from './messages/index.ts'

/** How long a queued receipt waits for others to the same connection (ms), while the agent is not busy. */
export const RECEIPT_BATCH_WINDOW_MS = 250

/**
 * How long a queued receipt waits at most (ms): while the agent is busy, receipts wait this long
 * for others to the same connection, so that a loaded agent sends fewer, fuller `message-receipts`.
 */
export const RECEIPT_BUSY_WINDOW_MS = 1000

/**
 * The share of the time the event loop ran callbacks (Node's event-loop utilization, 0 to 1)
 * since a receipt was queued, from which the agent counts as busy.
 */
export const BUSY_LOOP_UTILIZATION = 0.8

/** Most receipts in one queued `message-receipts`. */
const MAX_QUEUED_RECEIPTS = 100

type Receipt = { messageId: string; state: ReceiptState; timestamp?: Date }

/**
 * The receipts queued for one connection: sent together when `timer` fires. `since`: the event
 * loop's utilization when the first was queued (the time since then is the `idle` + `active` of
 * the utilization since it).
 */
interface QueuedReceipts {
  receipts: Receipt[]
  timer: NodeJS.Timeout
  since: EventLoopUtilization
}

@injectable()
export class ReceiptsApi {
  /** Receipts queued per connection, sent together when the window closes. */
  private readonly queued = new Map<string, QueuedReceipts>()
  private readonly sending = new Set<Promise<unknown>>()

  constructor(@inject(AgentContext) private readonly agentContext: AgentContext) {}

  /**
   * Sends `receipt` (timestamp: now unless given) in one `message-receipts` with the others queued
   * for `connectionId` meanwhile: the receipt leaves the hot path of the message it acknowledges,
   * and a burst costs one DIDComm message (one pack here, one unpack at the peer) instead of one
   * per message. The window closes after `RECEIPT_BATCH_WINDOW_MS`; if the event loop was busy
   * for at least `BUSY_LOOP_UTILIZATION` of it, it stays open until `RECEIPT_BUSY_WINDOW_MS`
   * (group commit's principle: under load the batches fill, when idle receipts leave early). With
   * 50 wallets each waiting for its answer, a peer's next message came after the short window
   * closed, so every message cost a receipt of its own (bench/README.md, "chat-round-trip").
   * `MAX_QUEUED_RECEIPTS` to one connection leave at once. A failed send is logged.
   */
  queue(connectionId: string, receipt: Receipt): void {
    const entry = this.queued.get(connectionId)
    const stamped = { ...receipt, timestamp: receipt.timestamp ?? new Date() }
    if (entry) {
      entry.receipts.push(stamped)
      if (entry.receipts.length >= MAX_QUEUED_RECEIPTS) this.sendQueued(connectionId)
      return
    }
    const timer = setTimeout(() => this.windowClosing(connectionId), RECEIPT_BATCH_WINDOW_MS)
    timer.unref()
    this.queued.set(connectionId, { receipts: [stamped], timer, since: performance.eventLoopUtilization() })
  }

  /** Sends every queued receipt now. Resolves when every send started so far has settled. */
  async flush(): Promise<void> {
    for (const connectionId of [...this.queued.keys()]) this.sendQueued(connectionId)
    await Promise.all(this.sending)
  }

  /** The short window of `connectionId`'s receipts is over: sends them, or keeps the window open while busy. */
  private windowClosing(connectionId: string): void {
    const entry = this.queued.get(connectionId)
    if (!entry) return
    const { idle, active, utilization } = performance.eventLoopUtilization(entry.since)
    const left = RECEIPT_BUSY_WINDOW_MS - (idle + active)
    if (left > 0 && utilization >= BUSY_LOOP_UTILIZATION) {
      entry.timer = setTimeout(() => this.sendQueued(connectionId), left)
      entry.timer.unref()
      return
    }
    this.sendQueued(connectionId)
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
