/**
 * Per-connection order across the pickup queue (Aries RFC 0685, Pickup v2). Credo's sender sends a
 * message over an open session of the connection, and queues it for pickup when there is none or
 * the session fails. A message queued while a wallet's socket was closing would then be overtaken
 * by every later message sent over the wallet's next socket (a greeting arriving after the
 * prompt that followed it). Here, while messages wait in the queue for a connection, are taken
 * for a delivery that is still being built and packed, or are being packed to join the queue, a
 * new one joins the queue behind them (in the order they were sent), and
 * `pickup-relay.ts` delivers the queue, in order, to the wallet's live session if it has one.
 * Order so rests on the queue's own state, never on how long packing or the disk take.
 *
 * Messages of the pickup protocol itself (deliveries, status) are sent as Credo sends them, a
 * delivery only after the connection's deliveries of messages taken before its own. A
 * delivery that cannot be sent gives its messages back to the queue: Credo takes them from the
 * queue before it sends the delivery, and only the wallet's `messages-received` removes them.
 *
 * Every message leaves only once the commits made before it are on disk: packing waits for that
 * (`DurableEnvelopeService`, registered by `OrderedPickupModule` with agent-node's
 * `Database.syncToDisk`), so a peer never learns of a state a power loss could undo.
 */
import { DidKey, type DependencyManager, EventEmitter, injectable, type Module } from '@credo-ts/core'
import {
  DidCommEnvelopeService,
  DidCommMessageDeliveryV2Message,
  DidCommEventTypes,
  DidCommMessageSender,
  type DidCommMessageSentEvent,
  type DidCommOutboundMessageContext,
  DidCommTransportService,
  OutboundMessageSendStatus,
} from '@credo-ts/didcomm'
import { KeyedQueue } from '@parley/shared/concurrency'
import type { DatabaseQueueTransportRepository } from './DatabaseQueueTransportRepository.ts'
import { DurableEnvelopeService, SYNC_TO_DISK } from './DurableEnvelopeService.ts'

/** Message types of Pickup v2 (Aries RFC 0685). */
const PICKUP_PROTOCOL = 'https://didcomm.org/messagepickup/'

/**
 * How long a delivery waits at most for the connection's earlier deliveries, in ms: those take
 * milliseconds; only one Credo took messages for and never sent would take longer.
 */
const EARLIER_DELIVERY_WAIT_MS = 10_000

/** The dependency token of the pickup queue the sender reads. */
const PICKUP_QUEUE = Symbol('PickupQueue')

@injectable()
export class OrderedMessageSender extends DidCommMessageSender {
  /**
   * Messages being packed to join the pickup queue, per connection, one after another: each joins
   * in the order it was sent, and a message sent meanwhile joins behind them.
   */
  private readonly joining = new KeyedQueue()

  /**
   * Sends as Credo does, except on a connection with messages waiting in the pickup queue or taken
   * for a delivery not yet sent, or others being packed to join the queue: then the message is
   * packed for the connection's session and queued behind them, in the order of the calls
   * (without a session, Credo queues it itself). Resolves once sent or queued.
   * @throws MessageSendingError as Credo's sender; the sync's error when the disk refuses it
   */
  override async sendMessage(
    outboundMessageContext: DidCommOutboundMessageContext,
    options?: Parameters<DidCommMessageSender['sendMessage']>[1],
  ): Promise<void> {
    const { agentContext, connection, message } = outboundMessageContext
    const queue = agentContext.resolve<DatabaseQueueTransportRepository>(PICKUP_QUEUE)
    if (connection && message instanceof DidCommMessageDeliveryV2Message) {
      // the attachments are the queued messages, by their queue id
      const queued = message.appendedAttachments?.map((attachment) => attachment.id) ?? []
      await queue.deliveriesBefore(connection.id, queued, EARLIER_DELIVERY_WAIT_MS)
      try {
        await super.sendMessage(outboundMessageContext, options)
      } catch (error) {
        await queue.release(connection.id, queued)
        throw error
      }
      queue.delivered(connection.id, queued)
      return
    }
    const behind =
      connection &&
      message.allowQueueTransport &&
      !message.type.startsWith(PICKUP_PROTOCOL) &&
      (queue.hasWaiting(connection.id) || queue.isDelivering(connection.id) || this.joining.has(connection.id))
    const session = behind ? agentContext.resolve(DidCommTransportService).findSessionByConnectionId(connection.id) : undefined
    if (!connection || !session?.keys) return super.sendMessage(outboundMessageContext, options)
    const keys = session.keys
    await this.joining.run(connection.id, async () => {
      const payload = await agentContext.resolve(DidCommEnvelopeService).packMessage(agentContext, message, keys)
      await queue.addMessage(agentContext, {
        connectionId: connection.id,
        recipientDids: keys.recipientKeys.map((key) => new DidKey(key).did),
        payload,
      })
    })
    agentContext.resolve(EventEmitter).emit<DidCommMessageSentEvent>(agentContext, {
      type: DidCommEventTypes.DidCommMessageSent,
      payload: { message: outboundMessageContext, status: OutboundMessageSendStatus.QueuedForPickup },
    })
  }
}

/**
 * Puts `OrderedMessageSender` in place of Credo's sender, with `queue` as the pickup queue it
 * reads, and `DurableEnvelopeService` in place of its envelope service, with `syncToDisk` what
 * packing a message waits for (default: nothing). Registered after `DidCommModule`, before the
 * agent resolves its APIs.
 */
export class OrderedPickupModule implements Module {
  constructor(
    private readonly queue: DatabaseQueueTransportRepository,
    private readonly syncToDisk: () => Promise<void> = () => Promise.resolve(),
  ) {}

  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerInstance(PICKUP_QUEUE, this.queue)
    dependencyManager.registerInstance(SYNC_TO_DISK, this.syncToDisk)
    dependencyManager.registerSingleton(DidCommEnvelopeService, DurableEnvelopeService)
    dependencyManager.registerSingleton(DidCommMessageSender, OrderedMessageSender)
  }
}
