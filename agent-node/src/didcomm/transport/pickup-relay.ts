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
 */
import { KeyedQueue } from '@parley/shared/concurrency'
import type { Cluster } from '../../cluster/Cluster.ts'
import type { Logger } from '../../logging/index.ts'
import type { DidcommAgent } from '../agent.ts'
import type { DatabaseQueueTransportRepository } from './DatabaseQueueTransportRepository.ts'

const PICKUP_CHANNEL = 'parley_pickup'

/**
 * Joins `queue` to the live sessions of this instance and, through `cluster`, of the other
 * instances (see the module comment). At every round, the messages instances that died had taken
 * and not delivered are offered again (`releaseGone`), here and on the other instances.
 */
export function relayPickups(agent: DidcommAgent, queue: DatabaseQueueTransportRepository, cluster: Cluster, logger: Logger): void {
  const deliveries = new KeyedQueue()
  const deliver = (connectionId: string) =>
    void deliveries
      .run(connectionId, () => deliverWaiting(agent, queue, connectionId))
      .catch((error: unknown) => logger.warn({ err: error, connectionId }, 'could not deliver queued messages to the live pickup session'))
  queue.onQueued((connectionId) => {
    deliver(connectionId)
    void cluster.signal(PICKUP_CHANNEL, connectionId)
  })
  cluster.onSignal(PICKUP_CHANNEL, (connectionId) => {
    queue.noteWaiting(connectionId)
    deliver(connectionId)
  })
  cluster.onTick(async () => {
    for (const connectionId of await queue.releaseGone()) {
      deliver(connectionId)
      await cluster.signal(PICKUP_CHANNEL, connectionId)
    }
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
