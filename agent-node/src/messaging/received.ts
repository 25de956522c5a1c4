/**
 * Messages from peers as agent events: every protocol's receiver (`registry.ts`) reports each
 * message as `message-received`; and the start-up recovery of one whose event a crash lost
 * (`events/recovery.ts`): a received message storage holds (`recoveries`) with no
 * `message-received` for its id gets one. The `received` receipt the live path sends is not sent
 * again.
 */
import type { AgentEvent } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { lastStateRecoverer, type EventRecoverer } from '../events/recovery.ts'
import type { DrizzleStorageService } from '../wallet/storage/index.ts'
import { receivers, recoveries } from './registry.ts'

/**
 * Subscribes every receiver to `agent`; `publish` stores the `message-received` of each message
 * and resolves once it is durable (the receipt waits for it, `acknowledge.ts`).
 */
export function reportReceivedMessages(agent: DidcommAgent, publish: (event: AgentEvent) => Promise<unknown>): void {
  for (const receiver of receivers) receiver(agent, (message) => publish({ type: 'message-received', message }))
}

/** Recovery of `message-received` events (see the module comment), of the messages stored in the recovery window. */
export function receivedMessageRecoverer(agent: DidcommAgent, storage: DrizzleStorageService): EventRecoverer {
  return lastStateRecoverer<true>({
    name: 'receivedMessages',
    topic: 'message-received',
    reported: (event) => (event.type === 'message-received' ? [event.message.id, true] : undefined),
    publishUnreported: true,
    stored: async (changedAfter) => {
      const stored = await Promise.all(recoveries.map((recovery) => recovery(agent, storage, new Date(changedAfter))))
      return stored.flat().map(({ message, createdAt }) => ({
        key: message.id,
        connectionId: message.connectionId,
        state: true as const,
        createdAt,
        event: { type: 'message-received', message },
      }))
    },
  })
}
