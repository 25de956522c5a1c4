/**
 * Messages between controller and user, as the spec's "Message" and "Message envelope" tables
 * define them (../shared/spec/agent-interface-and-events.md). One schema per message type; the
 * body of `POST /v1/message` is the discriminated union of the controller-to-user types.
 */
import { z } from 'zod'

/** `type: text` sent by the controller: a plain chat message. */
export const TextMessageBody = z.object({
  connectionId: z.uuid(),
  type: z.literal('text'),
  content: z.string().min(1).max(65_536),
  threadId: z.string().min(1).optional(),
})
export type TextMessageBody = z.infer<typeof TextMessageBody>

/** Body of `POST /v1/message`: one entry per message type the agent can send. */
export const SendMessageBody = z.discriminatedUnion('type', [TextMessageBody])
export type SendMessageBody = z.infer<typeof SendMessageBody>

/** Response of `POST /v1/message`: the id of the queued message. */
export const SendMessageResult = z.object({ id: z.uuid() })
export type SendMessageResult = z.infer<typeof SendMessageResult>

/** Envelope of a message received from a peer (inside `message-received`). `timestamp` is Unix seconds. */
export const MessageEnvelope = z.object({
  type: z.string(),
  id: z.string(),
  connectionId: z.uuid(),
  timestamp: z.number().int(),
  threadId: z.string().nullable(),
  content: z.string().optional(),
})
export type MessageEnvelope = z.infer<typeof MessageEnvelope>
