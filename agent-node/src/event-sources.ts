/**
 * What feeds the event outbox, composed: the Credo events each owner turns into agent events
 * (connections: `didcomm/connection-events.ts`; messages from peers: `messaging/received.ts`;
 * delivery states publish on their own, `messaging/DeliveryStates.ts`), and the start-up recovery
 * of each kind (`events/recovery.ts`). The `events/` layer knows none of them.
 */
import type { DidcommAgent } from './didcomm/agent.ts'
import { connectionStateRecoverer, reportConnectionStates } from './didcomm/connection-events.ts'
import type { EventPublisher } from './events/publisher.ts'
import type { EventRecoverer } from './events/recovery.ts'
import { messageStateRecoverer } from './messaging/DeliveryStates.ts'
import { receivedMessageRecoverer, reportReceivedMessages } from './messaging/received.ts'
import type { DrizzleStorageService } from './wallet/storage/index.ts'

/** Publishes, through `events`, the agent events `agent`'s Credo events imply (agent interface spec, "Events"). */
export function bridgeCredoEvents(agent: DidcommAgent, events: EventPublisher): void {
  const publish = (event: Parameters<EventPublisher['publish']>[0]) => events.publish(event)
  reportConnectionStates(agent, publish)
  reportReceivedMessages(agent, publish)
}

/** The recoverer of every kind of event the agent publishes from stored state, reading `storage` by change time. */
export function eventRecoverers(agent: DidcommAgent, storage: DrizzleStorageService): EventRecoverer[] {
  return [connectionStateRecoverer(agent, storage), receivedMessageRecoverer(agent, storage), messageStateRecoverer(agent, storage)]
}
