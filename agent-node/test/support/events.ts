/** Agent events for tests that publish directly (unit scope), and waiting on delivery records. */
import type { AgentEvent } from '@parley/shared'
import type { AgentNode } from '../../src/app.ts'
import type { DeliveryRecord } from '../../src/events/delivery/engine.ts'

/** A `message-state-updated` event of `connectionId`; `n` (its timestamp) tells events apart. */
export const messageState = (connectionId: string, n: number): AgentEvent => ({
  type: 'message-state-updated',
  messageId: crypto.randomUUID(),
  connectionId,
  state: 'sent',
  timestamp: n,
})

/** A `connection-state-updated` (completed) event of `connectionId`. */
export const connectionCompleted = (connectionId: string): AgentEvent => ({
  type: 'connection-state-updated',
  connectionId,
  invitationId: crypto.randomUUID(),
  state: 'completed',
})

/** The `timestamp` of a `message-state-updated` event, else null. */
export const timestampOf = (event: AgentEvent): number | null => (event.type === 'message-state-updated' ? event.timestamp : null)

/** Resolves with the next delivery record (recorded in the database) that `matches`. */
export function nextRecord(node: AgentNode, matches: (record: DeliveryRecord) => boolean): Promise<DeliveryRecord> {
  return new Promise((resolve) => {
    const off = node.delivery.observe((record) => {
      if (!matches(record)) return
      off()
      resolve(record)
    })
  })
}
