/**
 * Ending a connection with DID Rotate 1.0's `hangup` (Aries RFC 0794), as Credo 0.6 implements
 * it: the side that hangs up drops its own DID from the record (`did` undefined), the side that
 * receives it drops the peer's (`theirDid` undefined). The record stays `completed` in Credo's
 * terms; Parley reports such a connection as `terminated`.
 */
import type { Query } from '@credo-ts/core'
import {
  DidCommDidExchangeState,
  DidCommEventTypes,
  DidCommHangupMessage,
  type DidCommConnectionRecord,
  type DidCommMessage,
  type DidCommMessageProcessedEvent,
  type DidCommMessageSentEvent,
} from '@credo-ts/didcomm'
import type { DidcommAgent } from './agent.ts'

/** True when either side hung up the (completed) connection. */
export function isTerminated(record: DidCommConnectionRecord): boolean {
  return record.state === DidCommDidExchangeState.Completed && (!record.did || !record.theirDid)
}

/**
 * Connections without the tag `tag`: the record store reads a `null` value as "absent" (Credo's
 * `TagValue` has null, but the connection's own tag types leave it out).
 */
function withoutTag(tag: 'did' | 'theirDid'): Query<DidCommConnectionRecord> {
  return { [tag]: null } as unknown as Query<DidCommConnectionRecord>
}

/**
 * `isTerminated` as a tag query, for the connection lists: a completed connection matches it when
 * its own or the peer's DID is gone.
 */
export const HUNG_UP: Query<DidCommConnectionRecord> = { $or: [withoutTag('did'), withoutTag('theirDid')] }

/** A hang-up on a connection: sent by this agent (`by: 'agent'`) or received from the peer. */
export interface Hangup {
  by: 'agent' | 'peer'
  message: DidCommMessage
  connection: DidCommConnectionRecord
  /** When it was sent or received. */
  at: Date
}

/**
 * Calls `listener` for every hang-up this agent sends (whether or not it reached the peer: the
 * connection is over either way) and every hang-up a peer sends it.
 */
export function onHangup(agent: DidcommAgent, listener: (hangup: Hangup) => void): void {
  const isHangup = (message: DidCommMessage) => message.type === DidCommHangupMessage.type.messageTypeUri
  agent.events.on<DidCommMessageSentEvent>(DidCommEventTypes.DidCommMessageSent, ({ payload }) => {
    const { message, connection } = payload.message
    if (isHangup(message) && connection) listener({ by: 'agent', message, connection, at: new Date() })
  })
  agent.events.on<DidCommMessageProcessedEvent>(DidCommEventTypes.DidCommMessageProcessed, ({ payload }) => {
    const { message, connection, receivedAt } = payload
    if (isHangup(message) && connection) listener({ by: 'peer', message, connection, at: receivedAt ?? new Date() })
  })
}
