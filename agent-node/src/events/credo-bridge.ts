/**
 * Turns Credo's events into the spec's agent events (agent interface spec, "Events"):
 * - connection state changes (creation included) -> `connection-state-updated`; a hang-up from
 *   either side -> `connection-state-updated` with state `terminated`,
 * - messages from peers -> `message-received`, through each message type's receiver
 *   (`messages/registry.ts`).
 */
import { DidCommConnectionEventTypes, type DidCommConnectionRecord, type DidCommConnectionStateChangedEvent } from '@credo-ts/didcomm'
import { ConnectionState } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { isTerminated, onHangup } from '../didcomm/hangup.ts'
import { receivers } from '../messages/registry.ts'
import type { EventPublisher } from './publisher.ts'

/**
 * The state a connection reports as it is stored now: `terminated` once either side hung up,
 * else its DID Exchange state; undefined for requester-side states (not ours to report).
 */
export function reportedConnectionState(record: DidCommConnectionRecord): ConnectionState | undefined {
  if (isTerminated(record)) return 'terminated'
  const state = ConnectionState.safeParse(record.state)
  return state.success ? state.data : undefined
}

/** Subscribes `events` to `agent`'s Credo events. */
export function bridgeCredoEvents(agent: DidcommAgent, events: EventPublisher): void {
  agent.events.on<DidCommConnectionStateChangedEvent>(DidCommConnectionEventTypes.DidCommConnectionStateChanged, ({ payload }) => {
    const { connectionRecord } = payload
    const state = ConnectionState.safeParse(connectionRecord.state)
    if (!state.success) return // requester-side states: not ours to report
    events.publish({
      type: 'connection-state-updated',
      connectionId: connectionRecord.id,
      invitationId: connectionRecord.outOfBandId,
      state: state.data,
    })
  })

  onHangup(agent, ({ connection }) =>
    events.publish({
      type: 'connection-state-updated',
      connectionId: connection.id,
      invitationId: connection.outOfBandId,
      state: 'terminated',
    }),
  )

  for (const receiver of receivers) receiver(agent, (message) => events.publish({ type: 'message-received', message }))
}
