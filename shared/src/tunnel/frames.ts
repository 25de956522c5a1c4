/**
 * Frames exchanged over the tunnel WebSocket between agent-node (client) and the edge worker's
 * tunnel gateway Durable Object (server). Every frame is one JSON text message.
 *
 * agent-node -> worker
 * - `event`: one agent event, with its id (dedupe key) and its per-connection sequence number.
 * - `command-result`: the outcome of a command, keyed by the command id.
 * - `stats-request`: asks for the gateway's counters (agent-node's `/metrics` scrape).
 * - `mcp-stdio-message`: a message a stdio MCP server wrote (mcp-stdio.ts).
 *
 * worker -> agent-node
 * - `ack`: the conversation Durable Object has stored the event with this id.
 * - `reject`: the event with this id can never be stored (too large for the Durable Object, or
 *   refused by it for good); agent-node dead-letters it instead of sending it again.
 * - `command`: something for the agent to do; `idempotencyKey` makes a retried command run once.
 * - `stats`: the answer to a `stats-request` (same id): the gateway's counters since it was created.
 */
import { z } from 'zod'
import { AgentEvent } from '../events/index.ts'
import { SendMessageBody, SendMessageResult } from '../messages/index.ts'
import { McpStdioCommand, McpStdioMessageFrame, McpStdioWritten } from './mcp-stdio.ts'

/**
 * WebSocket close code the worker sends to an agent socket that a newer authenticated tunnel
 * connection replaced (another client holds TUNNEL_SECRET). The replaced agent-node does not
 * redial at once (see agent-node's TunnelClient), so two holders of the secret do not fight.
 */
export const TUNNEL_CLOSE_REPLACED = 4000

export const EventFrame = z.object({
  kind: z.literal('event'),
  id: z.uuid(),
  connectionId: z.uuid(),
  seq: z.number().int().nonnegative(),
  event: AgentEvent,
})
export type EventFrame = z.infer<typeof EventFrame>

/**
 * The largest agent event the tunnel carries, in UTF-8 bytes of its JSON (`event` of an event
 * frame): below the 2 MB a Durable Object's SQLite stores in one row (SQLITE_TOOBIG beyond).
 * agent-node dead-letters a larger event without sending it; the gateway rejects one it receives.
 */
export const MAX_EVENT_BYTES = 1_000_000

const utf8 = new TextEncoder()

/** UTF-8 bytes of `event` as JSON, to compare with `MAX_EVENT_BYTES`. */
export function eventBytes(event: unknown): number {
  return utf8.encode(JSON.stringify(event)).byteLength
}

export const AckFrame = z.object({ kind: z.literal('ack'), id: z.uuid() })
export type AckFrame = z.infer<typeof AckFrame>

/** The event `id` can never be stored; `reason` says why (for agent-node's dead letter and log). */
export const RejectFrame = z.object({ kind: z.literal('reject'), id: z.uuid(), reason: z.string().max(1_000) })
export type RejectFrame = z.infer<typeof RejectFrame>

/** Text that replaces a redacted message's content wherever agent-node stored it. */
export const REDACTION_MARKER = '[redacted]'

/**
 * `redact-message`: the received message `messageId` of `connectionId` held a secret (a value the
 * user typed while configuring a user-controlled MCP server, manifest spec "Authentication" rule
 * 7); agent-node overwrites its stored text and the `message-received` event's payload in the
 * outbox with `REDACTION_MARKER`. Redacting again is a no-op.
 */
export const RedactMessageCommand = z.object({
  name: z.literal('redact-message'),
  connectionId: z.uuid(),
  messageId: z.string().min(1).max(200),
})
export type RedactMessageCommand = z.infer<typeof RedactMessageCommand>

/** The result of `redact-message`: how many stored copies (message record, outbox event) were overwritten. */
export const RedactMessageResult = z.object({ redacted: z.number().int().nonnegative() })
export type RedactMessageResult = z.infer<typeof RedactMessageResult>

/**
 * Commands the edge may ask of the agent, one entry per name; agent-node runs each through its
 * `name -> handler` registry (agent-node/src/tunnel/commands/). `send-message` takes the
 * `POST /v1/message` body, every message type included, validated by the same schema.
 * `mcp-stdio` carries a server name and a JSON-RPC message, nothing else (mcp-stdio.ts).
 */
export const TunnelCommand = z.discriminatedUnion('name', [
  z.object({ name: z.literal('send-message'), message: SendMessageBody }),
  McpStdioCommand,
  RedactMessageCommand,
])
export type TunnelCommand = z.infer<typeof TunnelCommand>
export type TunnelCommandName = TunnelCommand['name']

/** The connection `command` is about; undefined for `mcp-stdio`, which is about a server. */
export function commandConnectionId(command: TunnelCommand): string | undefined {
  if (command.name === 'send-message') return command.message.connectionId
  return command.name === 'redact-message' ? command.connectionId : undefined
}

/** The message body of a `send-message` command; undefined for any other command. */
export function commandMessage(command: TunnelCommand): SendMessageBody | undefined {
  return command.name === 'send-message' ? command.message : undefined
}

export const CommandFrame = z.object({
  kind: z.literal('command'),
  id: z.uuid(),
  idempotencyKey: z.string().min(1).max(200),
  /** The event (or timer) whose handling issued the command, so both sides' log lines name it; absent from older workers. */
  eventId: z.string().min(1).max(200).optional(),
  command: TunnelCommand,
})
export type CommandFrame = z.infer<typeof CommandFrame>

/**
 * What a command that succeeded answers: `send-message` the message id, `redact-message` a count,
 * `mcp-stdio` `{ written: true }`.
 */
export const CommandResult = z.union([SendMessageResult, RedactMessageResult, McpStdioWritten])
export type CommandResult = z.infer<typeof CommandResult>

export const CommandResultFrame = z.discriminatedUnion('ok', [
  z.object({ kind: z.literal('command-result'), id: z.uuid(), ok: z.literal(true), result: CommandResult }),
  z.object({ kind: z.literal('command-result'), id: z.uuid(), ok: z.literal(false), error: z.string() }),
])
export type CommandResultFrame = z.infer<typeof CommandResultFrame>

export const StatsRequestFrame = z.object({ kind: z.literal('stats-request'), id: z.uuid() })
export type StatsRequestFrame = z.infer<typeof StatsRequestFrame>

/** Counter names are snake_case (they become a Prometheus label); values only grow. */
export const StatsFrame = z.object({
  kind: z.literal('stats'),
  id: z.uuid(),
  counters: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.number().int().nonnegative()),
})
export type StatsFrame = z.infer<typeof StatsFrame>

/**
 * Frames agent-node sends up the tunnel, told apart by `kind`: a frame is checked against its own
 * kind's schema only (a plain union would try each kind in turn, an event frame's schema first,
 * and an error would name no field).
 */
export const UpstreamFrame = z.discriminatedUnion('kind', [EventFrame, CommandResultFrame, StatsRequestFrame, McpStdioMessageFrame])
export type UpstreamFrame = z.infer<typeof UpstreamFrame>

/** Frames the worker sends down the tunnel, told apart by `kind` as `UpstreamFrame`'s are. */
export const DownstreamFrame = z.discriminatedUnion('kind', [AckFrame, RejectFrame, CommandFrame, StatsFrame])
export type DownstreamFrame = z.infer<typeof DownstreamFrame>

/**
 * Parses one WebSocket text message with `schema`.
 * @returns the frame, or an `error` string naming what is wrong (never throws).
 */
export function parseFrame<T>(schema: z.ZodType<T>, data: string | ArrayBuffer | Uint8Array): { frame: T } | { error: string } {
  let json: unknown
  try {
    json = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data))
  } catch {
    return { error: 'frame is not valid JSON' }
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return { error: `invalid frame at '${issue?.path.join('.') || '(root)'}': ${issue?.message ?? 'unknown'}` }
  }
  return { frame: parsed.data }
}
