/**
 * Start-up recovery of events lost between a state change and its outbox write.
 *
 * Credo saves a record, then emits the event the Credo bridge turns into an agent event; a crash
 * in between leaves the change stored with no event (issue 6, "Outbox": "otherwise immediately
 * after, and recovered on start-up"). The same holds for Parley's own delivery states
 * (`messages/DeliveryStates.ts` saves the record, then publishes). `recoverLostEvents` runs once
 * at start-up, before the servers open, and compares what storage says with what the outbox has:
 *
 * - connections: a connection whose current state (DID Exchange state, or `terminated` when
 *   either side hung up, `didcomm/hangup.ts`) differs from the last `connection-state-updated`
 *   in the outbox for it, or that has none, gets one `connection-state-updated` with its current
 *   state. Intermediate states lost on the way are collapsed: only the current one is reported.
 * - received basic messages (`DidCommBasicMessageRecord`, role receiver) with no
 *   `message-received` for their message id get their `text` envelope. Credo's record keeps the
 *   message's thread id, which is its `@id` unless the sender set an explicit thread; the
 *   envelope's `threadId` is rebuilt from the parent thread. The `received` receipt the live
 *   path sends is not sent again.
 * - sent messages (`SentMessageRecord`) whose stored delivery state is ahead of their last
 *   `message-state-updated` get one with the stored state (intermediate states collapsed). A
 *   record with no event at all is skipped: its `created` was never stored, so
 *   `POST /v1/message` failed and the controller never learned its id.
 *
 * Every recovered event goes through the publisher like any other (new id, next sequence number
 * of its connection), so a second start finds nothing to recover. The outbox is read through its
 * public paging query; the cost is one pass over the stored events at start-up.
 */
import {
  DidCommBasicMessageRepository,
  DidCommBasicMessageRole,
  DidCommConnectionRepository,
  type DidCommBasicMessageRecord,
} from '@credo-ts/didcomm'
import type { AgentEvent, ConnectionState, MessageState, TextMessageEnvelope } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { Logger } from '../logging/index.ts'
import { sentMessageRepository } from '../messages/SentMessageRecord.ts'
import { reportedConnectionState } from './credo-bridge.ts'
import type { OutboxStore } from './outbox/store.ts'
import type { EventPublisher } from './publisher.ts'

/** Outbox rows read per page while scanning. */
const PAGE = 1000

/** How many events of each kind `recoverLostEvents` published. */
export interface RecoveryReport {
  connectionStates: number
  receivedMessages: number
  messageStates: number
}

/** Calls `visit` with every stored event, oldest first, in one paged pass over the outbox. */
async function scan(outbox: OutboxStore, visit: (event: AgentEvent) => void): Promise<void> {
  let after = 0
  for (;;) {
    const page = await outbox.eventsAfterPosition(after, {}, PAGE)
    for (const published of page) visit(published.event)
    if (page.length < PAGE) return
    after = page.at(-1)!.position
  }
}

/** The `text` envelope of a received basic message, rebuilt from Credo's record. */
function textEnvelope(record: DidCommBasicMessageRecord, messageId: string): TextMessageEnvelope {
  return {
    type: 'text',
    id: messageId,
    connectionId: record.connectionId,
    timestamp: Math.floor(new Date(record.sentTime).getTime() / 1000),
    threadId: record.parentThreadId ?? null,
    content: record.content,
  }
}

/**
 * Publishes the events storage implies but the outbox lacks (see the module comment), and waits
 * until they are stored. Run once at start-up, after the Credo bridge is subscribed and before
 * any server or the tunnel opens (so no live event races it).
 * @returns how many events of each kind were recovered.
 * @throws when storage or the outbox cannot be read, or a recovered event cannot be stored.
 */
export async function recoverLostEvents(
  agent: DidcommAgent,
  outbox: OutboxStore,
  events: EventPublisher,
  logger: Logger,
): Promise<RecoveryReport> {
  const { context, dependencyManager } = agent
  const pending: Promise<unknown>[] = []
  const report: RecoveryReport = { connectionStates: 0, receivedMessages: 0, messageStates: 0 }

  const lastConnectionState = new Map<string, ConnectionState>()
  const receivedIds = new Set<string>()
  const lastMessageState = new Map<string, MessageState>()
  await scan(outbox, (e) => {
    if (e.type === 'connection-state-updated') lastConnectionState.set(e.connectionId, e.state)
    else if (e.type === 'message-received') receivedIds.add(e.message.id)
    else if (e.type === 'message-state-updated') lastMessageState.set(e.messageId, e.state)
  })

  for (const record of await dependencyManager.resolve(DidCommConnectionRepository).getAll(context)) {
    const state = reportedConnectionState(record)
    if (!state || lastConnectionState.get(record.id) === state) continue
    logger.warn(
      { connectionId: record.id, state, lastReported: lastConnectionState.get(record.id) },
      'recovering a lost connection-state-updated',
    )
    pending.push(events.publish({ type: 'connection-state-updated', connectionId: record.id, invitationId: record.outOfBandId, state }))
    report.connectionStates++
  }

  const basicMessages = await dependencyManager
    .resolve(DidCommBasicMessageRepository)
    .findByQuery(context, { role: DidCommBasicMessageRole.Receiver })
  for (const record of basicMessages) {
    const messageId = record.threadId
    if (!messageId || receivedIds.has(messageId)) continue
    logger.warn({ connectionId: record.connectionId, messageId }, 'recovering a lost message-received')
    pending.push(events.publish({ type: 'message-received', message: textEnvelope(record, messageId) }))
    report.receivedMessages++
  }

  for (const record of await sentMessageRepository(context).getAll(context)) {
    const reported = lastMessageState.get(record.id)
    if (!reported || reported === record.state) continue
    logger.warn(
      { connectionId: record.connectionId, messageId: record.id, state: record.state, lastReported: reported },
      'recovering a lost message-state-updated',
    )
    pending.push(
      events.publish({
        type: 'message-state-updated',
        messageId: record.id,
        connectionId: record.connectionId,
        state: record.state,
        timestamp: Math.floor((record.updatedAt ?? record.createdAt).getTime() / 1000),
      }),
    )
    report.messageStates++
  }

  await Promise.all(pending)
  return report
}
