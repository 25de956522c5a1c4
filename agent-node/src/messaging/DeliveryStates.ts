/**
 * Delivery states of the messages the controller sends (spec "Message delivery state"), moving
 * only forward: created -> sent -> delivered -> viewed, with errored in place of sent when the
 * transport fails. Each move is stored (`SentMessageRecord`) and reported as one
 * `message-state-updated`; a move backwards or sideways (a late `sent` after the peer's receipt,
 * a repeated receipt) is dropped silently. That holds across agent-node instances on one
 * database as well: a move stores its record only if no other instance changed it since it was
 * read (`updateByIdWithLock`), and is decided again on the fresh record otherwise.
 *
 * The peer's receipts (2060.io receipts protocol) drive `delivered` (`received`) and `viewed`
 * (`viewed`); a receipt counts only for a message sent on the connection it arrived on.
 */
import { RecordNotFoundError } from '@credo-ts/core'
import type { AgentEvent, MessageState, SendMessageBody } from '@parley/shared'
import { KeyedQueue } from '@parley/shared/concurrency'
import { ForwardOnly } from '@parley/shared/forward-only'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { ReceiptState, ReceiptsEventTypes, type MessageReceiptsReceivedEvent } from '../didcomm/protocols/receipts/index.ts'
import type { EventPublisher } from '../events/publisher.ts'
import { lastStateRecoverer, type EventRecoverer } from '../events/recovery.ts'
import type { Logger } from '../logging/index.ts'
import type { DrizzleStorageService } from '../wallet/storage/index.ts'
import { SentMessageRecord, sentMessageRepository } from './SentMessageRecord.ts'

/** The order of the states; a move is taken only to a later stage. `errored` stands where `sent` does. */
const STATE_ORDER = new ForwardOnly<MessageState>([['created'], ['sent', 'errored'], ['delivered'], ['viewed']])

/** Receipt states that move a delivery state; the others (created, submitted, deleted) say nothing new. */
const FROM_RECEIPT: Partial<Record<ReceiptState, MessageState>> = {
  [ReceiptState.Received]: 'delivered',
  [ReceiptState.Viewed]: 'viewed',
}

export class DeliveryStates {
  /** Moves of one message apply one at a time, in call order. */
  private readonly moves = new KeyedQueue()

  constructor(
    private readonly agent: DidcommAgent,
    private readonly events: EventPublisher,
    private readonly logger: Logger,
    /** This agent-node instance (`cluster/`), recorded on each message it accepts. */
    private readonly instanceId?: string,
  ) {
    agent.events.on<MessageReceiptsReceivedEvent>(ReceiptsEventTypes.MessageReceiptsReceived, ({ payload }) => {
      for (const receipt of payload.receipts) {
        const state = FROM_RECEIPT[receipt.state]
        if (state) void this.advance(receipt.messageId, payload.connectionId, state)
      }
    })
  }

  /**
   * Moves message `messageId` of `connectionId` to `state` if that is forward, storing and
   * reporting it. `created` starts the record; any other state for an unknown message (or one of
   * another connection) is ignored. Never rejects: storage failures are logged.
   */
  advance(messageId: string, connectionId: string, state: MessageState): Promise<void> {
    return this.enqueue(messageId, connectionId, state).catch((error: unknown) => {
      this.logger.warn({ messageId, connectionId, state, err: error }, 'could not record a delivery state')
    })
  }

  /**
   * Starts the record of a new message with `created` and its body (kept until it is `sent` or
   * `errored`, so a restart can send it), stored with its event in the outbox before this
   * resolves (so `POST /v1/message` answers only once `created` is durable).
   * @throws the storage error when it could not be stored; nothing was then reported.
   */
  create(messageId: string, connectionId: string, body: SendMessageBody): Promise<void> {
    return this.enqueue(messageId, connectionId, 'created', body)
  }

  /** Whether message `messageId` was accepted (its `created` is stored). */
  async exists(messageId: string): Promise<boolean> {
    return (await sentMessageRepository(this.agent.context).findById(this.agent.context, messageId)) !== null
  }

  /**
   * The messages accepted and not yet sent or errored, with their bodies and the instance sending
   * them, oldest first.
   */
  async accepted(): Promise<Array<{ messageId: string; connectionId: string; body?: SendMessageBody; instanceId?: string }>> {
    const records = await sentMessageRepository(this.agent.context).findByQuery(this.agent.context, { state: 'created' })
    return records.map((record) => ({
      messageId: record.id,
      connectionId: record.connectionId,
      body: record.body,
      instanceId: record.instanceId,
    }))
  }

  /** Records that this instance sends accepted message `messageId` from now on (it adopted it). */
  async adopt(messageId: string): Promise<void> {
    await this.moves.run(messageId, () =>
      this.change(messageId, (record) => {
        if (record.state !== 'created') return false
        record.instanceId = this.instanceId
        return true
      }),
    )
  }

  /** Applies moves of one message one after another. */
  private enqueue(messageId: string, connectionId: string, state: MessageState, body?: SendMessageBody): Promise<void> {
    return this.moves.run(messageId, () => this.apply(messageId, connectionId, state, body))
  }

  /** Resolves when every move started so far has been applied. */
  settled(): Promise<void> {
    return this.moves.settled()
  }

  /**
   * Applies `edit` to the stored record of message `messageId` and stores it, atomically against
   * other agent-node instances on the same database (`updateByIdWithLock`: when another one
   * changed the record meanwhile, `edit` runs again on the fresh record), so no instance writes
   * over a later state another one stored.
   * @param edit changes the record and returns true, or returns false (and changes nothing)
   * @returns whether `edit` changed it; false also when there is no such record.
   */
  private async change(messageId: string, edit: (record: SentMessageRecord) => boolean): Promise<boolean> {
    let changed = false
    try {
      await sentMessageRepository(this.agent.context).updateByIdWithLock(this.agent.context, messageId, async (record) => {
        changed = edit(record)
        return record
      })
    } catch (error) {
      if (error instanceof RecordNotFoundError) return false
      throw error
    }
    return changed
  }

  private async apply(messageId: string, connectionId: string, state: MessageState, body?: SendMessageBody): Promise<void> {
    if (state === 'created') {
      await sentMessageRepository(this.agent.context).save(
        this.agent.context,
        new SentMessageRecord({ id: messageId, connectionId, state, body, instanceId: this.instanceId }),
      )
    } else {
      const moved = await this.change(messageId, (record) => {
        if (record.connectionId !== connectionId || !STATE_ORDER.advances(record.state, state)) return false
        record.state = state
        record.body = undefined // it left, or never will: nothing to send again
        return true
      })
      if (!moved) return
    }
    await this.events.publish({ type: 'message-state-updated', messageId, connectionId, state, timestamp: Math.floor(Date.now() / 1000) })
  }
}

/**
 * Recovery of delivery states (`events/recovery.ts`): a sent message changed in the recovery
 * window whose stored state is ahead of its last `message-state-updated` gets one with the stored
 * state (intermediate states collapsed). A record with no event at all is skipped: its `created`
 * was never stored, so `POST /v1/message` failed and the controller never learned its id.
 */
export function messageStateRecoverer(agent: DidcommAgent, storage: DrizzleStorageService): EventRecoverer {
  return lastStateRecoverer<MessageState>({
    name: 'messageStates',
    topic: 'message-state-updated',
    reported: (event) => (event.type === 'message-state-updated' ? [event.messageId, event.state] : undefined),
    publishUnreported: false,
    stored: async (changedAfter) => {
      const records = await storage.findUpdatedAfter(agent.context, SentMessageRecord, {}, new Date(changedAfter))
      return records.map((record) => {
        const timestamp = Math.floor((record.updatedAt ?? record.createdAt).getTime() / 1000)
        const { id: messageId, connectionId, state } = record
        const event: AgentEvent = { type: 'message-state-updated', messageId, connectionId, state, timestamp }
        return { key: messageId, connectionId, state, createdAt: record.createdAt.getTime(), event }
      })
    },
  })
}
