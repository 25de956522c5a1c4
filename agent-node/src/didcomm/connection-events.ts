/**
 * Connections as agent events (agent interface spec, "Events"): every state change (creation
 * included) is reported as `connection-state-updated`, a hang-up from either side as
 * `connection-state-updated` with state `terminated` (`hangup.ts`); and the start-up recovery of
 * a change whose event a crash lost (`events/recovery.ts`).
 */
import { DidCommConnectionEventTypes, DidCommConnectionRecord, type DidCommConnectionStateChangedEvent } from '@credo-ts/didcomm'
import { ConnectionState, type AgentEvent } from '@parley/shared'
import { lastStateRecoverer, type EventRecoverer } from '../events/recovery.ts'
import type { DrizzleStorageService } from '../wallet/storage/index.ts'
import type { DidcommAgent } from './agent.ts'
import { isTerminated, onHangup } from './hangup.ts'

/**
 * The state a connection reports as it is stored now: `terminated` once either side hung up,
 * else its DID Exchange state; undefined for requester-side states (not ours to report).
 */
export function reportedConnectionState(record: DidCommConnectionRecord): ConnectionState | undefined {
  if (isTerminated(record)) return 'terminated'
  const state = ConnectionState.safeParse(record.state)
  return state.success ? state.data : undefined
}

/** Calls `publish` with a `connection-state-updated` for each change of `agent`'s connections. */
export function reportConnectionStates(agent: DidcommAgent, publish: (event: AgentEvent) => unknown): void {
  agent.events.on<DidCommConnectionStateChangedEvent>(DidCommConnectionEventTypes.DidCommConnectionStateChanged, ({ payload }) => {
    const { connectionRecord } = payload
    const state = ConnectionState.safeParse(connectionRecord.state)
    if (!state.success) return // requester-side states: not ours to report
    publish({
      type: 'connection-state-updated',
      connectionId: connectionRecord.id,
      invitationId: connectionRecord.outOfBandId,
      state: state.data,
    })
  })
  onHangup(agent, ({ connection }) =>
    publish({ type: 'connection-state-updated', connectionId: connection.id, invitationId: connection.outOfBandId, state: 'terminated' }),
  )
}

/**
 * Recovery of connection states: a connection changed in the recovery window whose current state
 * (`reportedConnectionState`) differs from its last `connection-state-updated`, or that has none,
 * gets one with its current state. Intermediate states lost on the way are collapsed.
 */
export function connectionStateRecoverer(agent: DidcommAgent, storage: DrizzleStorageService): EventRecoverer {
  return lastStateRecoverer<ConnectionState>({
    name: 'connectionStates',
    topic: 'connection-state-updated',
    reported: (event) => (event.type === 'connection-state-updated' ? [event.connectionId, event.state] : undefined),
    publishUnreported: true,
    stored: async (changedAfter) => {
      const records = await storage.findUpdatedAfter(agent.context, DidCommConnectionRecord, {}, new Date(changedAfter))
      return records.flatMap((record) => {
        const state = reportedConnectionState(record)
        if (!state) return []
        const event: AgentEvent = { type: 'connection-state-updated', connectionId: record.id, invitationId: record.outOfBandId, state }
        return [{ key: record.id, connectionId: record.id, state, createdAt: record.createdAt.getTime(), event }]
      })
    },
  })
}
