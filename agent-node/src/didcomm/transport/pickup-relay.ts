/**
 * Delivers the pickup queue to wallets' live sessions (Pickup v2 live mode, Aries RFC 0685) as
 * soon as something is queued, instead of at the wallet's next pickup request:
 * - queued by this instance (Credo found no session, or `OrderedMessageSender` put a message
 *   behind others already waiting): delivered here when this instance holds the live session;
 * - queued by another agent-node on the same database (`cluster/`), which holds no session: it
 *   names the connection on the `parley_pickup` channel, and the instance holding the session
 *   delivers what waits for it.
 * Deliveries of one connection run one after another, so queued messages reach the wallet in
 * queue order.
 *
 * A wallet in live mode asks for nothing more, so what waits must reach its live session by
 * itself: at every round each instance delivers the queued messages of the wallets whose live
 * session it holds (a notification lost, a message queued while the wallet's socket moved here,
 * one a dead instance had taken and not delivered), and a live session outlives the replacement
 * of its socket (`keepLiveMode`).
 */
import {
  DidCommMessagePickupEventTypes,
  DidCommMessagePickupSessionService,
  DidCommTransportService,
  type MessagePickupLiveSessionRemovedEvent,
} from '@credo-ts/didcomm'
import { KeyedQueue } from '@parley/shared/concurrency'
import type { Cluster } from '../../cluster/Cluster.ts'
import type { Logger } from '../../logging/index.ts'
import type { DidcommAgent } from '../agent.ts'
import type { DatabaseQueueTransportRepository } from './DatabaseQueueTransportRepository.ts'

const PICKUP_CHANNEL = 'parley_pickup'

/**
 * Joins `queue` to the live sessions of this instance and, through `cluster`, of the other
 * instances (see the module comment). At every round, the messages instances that died had taken
 * and not delivered are offered again (`releaseGone`), and every instance delivers what waits for
 * the live sessions it holds.
 */
export function relayPickups(agent: DidcommAgent, queue: DatabaseQueueTransportRepository, cluster: Cluster, logger: Logger): void {
  const deliveries = new KeyedQueue()
  const deliver = (connectionId: string) =>
    void deliveries
      .run(connectionId, () => deliverWaiting(agent, queue, connectionId))
      .catch((error: unknown) => logger.warn({ err: error, connectionId }, 'could not deliver queued messages to the live pickup session'))
  const waiting = (connectionId: string) => {
    queue.noteWaiting(connectionId)
    deliver(connectionId)
  }
  keepLiveMode(agent)
  queue.onQueued((connectionId) => {
    deliver(connectionId)
    void cluster.signal(PICKUP_CHANNEL, connectionId)
  })
  cluster.onSignal(PICKUP_CHANNEL, waiting)
  cluster.onTick(async () => {
    for (const connectionId of await queue.releaseGone()) await cluster.signal(PICKUP_CHANNEL, connectionId)
    for (const connectionId of await queue.pendingConnections()) waiting(connectionId)
  })
}

/**
 * Delivers what waits for `connectionId` to its live session, if this instance holds one, in
 * batches (Credo takes ten a delivery) until nothing waits.
 */
async function deliverWaiting(agent: DidcommAgent, queue: DatabaseQueueTransportRepository, connectionId: string): Promise<void> {
  const pickup = agent.modules.didcomm.messagePickup
  while (queue.hasWaiting(connectionId)) {
    const session = await pickup.getLiveModeSession({ connectionId })
    if (!session) return
    await pickup.deliverMessagesFromQueue({ pickupSessionId: session.id })
  }
}

/**
 * Credo keeps one WebSocket session per connection: a message on a second socket of the same
 * wallet replaces the first socket's session (`DidCommTransportService.saveSession`), and a live
 * pickup session on it ends too, though the wallet, still connected, still waits in live mode and
 * asks for nothing more. Here the live session moves to the session that replaced it (stored in
 * the same synchronous call, so it is there once the removal's call has returned). When the
 * wallet's last socket closes there is no such session and live mode ends, as in Credo.
 */
function keepLiveMode(agent: DidcommAgent): void {
  const transports = agent.dependencyManager.resolve(DidCommTransportService)
  const liveSessions = agent.dependencyManager.resolve(DidCommMessagePickupSessionService)
  agent.events.on<MessagePickupLiveSessionRemovedEvent>(DidCommMessagePickupEventTypes.LiveSessionRemoved, ({ payload }) => {
    const { connectionId, protocolVersion, role, transportSessionId } = payload.session
    queueMicrotask(() => {
      const replacing = transports.findSessionByConnectionId(connectionId)
      if (!replacing || replacing.id === transportSessionId || replacing.type !== 'WebSocket') return
      if (!replacing.inboundMessage?.hasAnyReturnRoute()) return
      if (liveSessions.getLiveSessionByConnectionId(agent.context, { connectionId })) return
      liveSessions.saveLiveSession(agent.context, { connectionId, protocolVersion, role, transportSessionId: replacing.id })
    })
  })
}
