/**
 * Messages from peers as agent events: every protocol's receiver (`registry.ts`) reports each
 * message as `message-received`; and the start-up recovery of one whose event a crash lost
 * (`events/recovery.ts`): a received message storage holds (`recoveries`) with no
 * `message-received` for its id gets one. The `received` receipt the live path sends is not sent
 * again.
 */
import type { AgentEvent } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { EventRecoverer } from '../events/recovery.ts'
import { receivers, recoveries } from './registry.ts'

/**
 * Subscribes every receiver to `agent`; `publish` stores the `message-received` of each message
 * and resolves once it is durable (the receipt waits for it, `acknowledge.ts`).
 */
export function reportReceivedMessages(agent: DidcommAgent, publish: (event: AgentEvent) => Promise<unknown>): void {
  for (const receiver of receivers) receiver(agent, (message) => publish({ type: 'message-received', message }))
}

/** Recovery of `message-received` events (see the module comment). */
export function receivedMessageRecoverer(agent: DidcommAgent): EventRecoverer {
  const reported = new Set<string>()
  return {
    name: 'receivedMessages',
    observe(event) {
      if (event.type === 'message-received') reported.add(event.message.id)
    },
    async recover(logger, changedAfter) {
      const lost: AgentEvent[] = []
      for (const recovery of recoveries) {
        for (const message of await recovery(agent)) {
          // `timestamp` is in seconds; a message from before the pruner's mark may have been pruned
          if (reported.has(message.id) || message.timestamp * 1000 <= changedAfter) continue
          logger.warn({ connectionId: message.connectionId, messageId: message.id }, 'recovering a lost message-received')
          lost.push({ type: 'message-received', message })
          reported.add(message.id)
        }
      }
      return lost
    },
  }
}
