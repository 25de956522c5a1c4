/**
 * Messages for a wallet whose live pickup session (Pickup v2 live mode, Aries RFC 0685) is held
 * by another agent-node on the same database (`cluster/`). The instance that sends finds no
 * session of its own and queues the message in the database (`DatabaseQueueTransportRepository`);
 * it then names the connection on the `parley_pickup` channel, and the instance holding the
 * session delivers what waits for it at once, instead of at the wallet's next pickup request.
 */
import type { Cluster } from '../../cluster/Cluster.ts'
import type { Logger } from '../../logging/index.ts'
import type { DidcommAgent } from '../agent.ts'
import type { DatabaseQueueTransportRepository } from './DatabaseQueueTransportRepository.ts'

const PICKUP_CHANNEL = 'parley_pickup'

/**
 * Joins `queue` to the other instances through `cluster` (see the module comment). At every
 * round, the messages instances that died had taken and not delivered are offered again
 * (`releaseGone`), here and on the other instances.
 */
export function relayPickups(agent: DidcommAgent, queue: DatabaseQueueTransportRepository, cluster: Cluster, logger: Logger): void {
  const deliver = (connectionId: string) =>
    void deliverQueued(agent, connectionId).catch((error: unknown) =>
      logger.warn({ err: error, connectionId }, 'could not deliver queued messages to the live pickup session'),
    )
  queue.onQueued((connectionId) => void cluster.signal(PICKUP_CHANNEL, connectionId))
  cluster.onSignal(PICKUP_CHANNEL, deliver)
  cluster.onTick(async () => {
    for (const connectionId of await queue.releaseGone()) {
      deliver(connectionId)
      await cluster.signal(PICKUP_CHANNEL, connectionId)
    }
  })
}

/** Delivers the queued messages of `connectionId` to its live session, if this instance holds one. */
async function deliverQueued(agent: DidcommAgent, connectionId: string): Promise<void> {
  const pickup = agent.modules.didcomm.messagePickup
  const session = await pickup.getLiveModeSession({ connectionId })
  if (session) await pickup.deliverMessagesFromQueue({ pickupSessionId: session.id })
}
