/**
 * Turns Credo's events into the spec's agent events (../shared/spec "Events"):
 * - connection state changes (creation included) -> `connection-state-updated`,
 * - basic messages received -> `message-received` with `type: text`.
 */
import type { Agent } from '@credo-ts/core'
import {
  DidCommBasicMessageEventTypes,
  DidCommBasicMessageRole,
  DidCommConnectionEventTypes,
  type DidCommBasicMessageStateChangedEvent,
  type DidCommConnectionStateChangedEvent,
} from '@credo-ts/didcomm'
import { ConnectionState } from '@parley/shared'
import type { EventPublisher } from './publisher.ts'

/** Subscribes `events` to `agent`'s Credo events. */
export function bridgeCredoEvents(agent: Agent, events: EventPublisher): void {
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

  agent.events.on<DidCommBasicMessageStateChangedEvent>(DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged, ({ payload }) => {
    const { message, basicMessageRecord: record } = payload
    if (record.role !== DidCommBasicMessageRole.Receiver) return
    events.publish({
      type: 'message-received',
      message: {
        type: 'text',
        id: message.id,
        connectionId: record.connectionId,
        timestamp: Math.floor(message.sentTime.getTime() / 1000),
        threadId: message.thread?.threadId ?? message.thread?.parentThreadId ?? null,
        content: message.content,
      },
    })
  })
}
