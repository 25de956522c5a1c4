/**
 * Events agent-node reports to its controller, exactly as the spec's "Events" section defines
 * them (agent interface spec, "Events"). Every event body carries `type` equal to
 * its topic; HTTP delivery POSTs it to `${EVENTS_BASE_URL}/<topic>`.
 */
import { z } from 'zod'
import { MessageEnvelope } from '../messages/index.ts'

/**
 * DID Exchange states a connection reports, in the order a responder walks them. Parley
 * additions to the spec's four states: `abandoned` (a failed exchange, RFC 0023) and
 * `terminated` (either side hung up, DID Rotate 1.0 `hangup`; the connection takes no more
 * messages).
 */
export const ConnectionState = z.enum(['invitation-sent', 'request-received', 'response-sent', 'completed', 'abandoned', 'terminated'])
export type ConnectionState = z.infer<typeof ConnectionState>

/** Delivery states of a message sent through `POST /v1/message`. */
export const MessageState = z.enum(['created', 'sent', 'delivered', 'viewed', 'errored'])
export type MessageState = z.infer<typeof MessageState>

/**
 * `connection-state-updated`: a connection was created or its DID Exchange state advanced.
 * `invitationId` is absent only for connections made without an out-of-band invitation.
 */
export const ConnectionStateUpdatedEvent = z.object({
  type: z.literal('connection-state-updated'),
  connectionId: z.uuid(),
  invitationId: z.uuid().optional(),
  state: ConnectionState,
})
export type ConnectionStateUpdatedEvent = z.infer<typeof ConnectionStateUpdatedEvent>

/** `message-state-updated`: a message sent by the controller changed delivery state. `timestamp` is Unix seconds. */
export const MessageStateUpdatedEvent = z.object({
  type: z.literal('message-state-updated'),
  messageId: z.uuid(),
  timestamp: z.number().int(),
  connectionId: z.uuid(),
  state: MessageState,
})
export type MessageStateUpdatedEvent = z.infer<typeof MessageStateUpdatedEvent>

/** `message-received`: a peer sent the agent a message. */
export const MessageReceivedEvent = z.object({
  type: z.literal('message-received'),
  message: MessageEnvelope,
})
export type MessageReceivedEvent = z.infer<typeof MessageReceivedEvent>

/** Any event body; `type` is the topic. */
export const AgentEvent = z.discriminatedUnion('type', [ConnectionStateUpdatedEvent, MessageStateUpdatedEvent, MessageReceivedEvent])
export type AgentEvent = z.infer<typeof AgentEvent>
export type EventTopic = AgentEvent['type']

/** The connection an event belongs to: the unit of ordering for delivery. */
export function eventConnectionId(event: AgentEvent): string {
  return event.type === 'message-received' ? event.message.connectionId : event.connectionId
}
