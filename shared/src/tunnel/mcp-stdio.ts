/**
 * What the tunnel carries for MCP servers of `transport: stdio` (manifest spec "mcp"): the
 * processes run beside agent-node, started from agent-node's own copy of the agent pack, and the
 * edge reaches them by server name only. These schemas are strict on purpose: a `mcp-stdio`
 * command holds a server name and one JSON-RPC 2.0 message, nothing that could name a program,
 * its arguments or its environment (any other key is refused by the frame schema).
 */
import { z } from 'zod'

/** A configured server's `name` as the pack spells it: 1-200 characters, no control characters. */
export const McpServerName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters')

/** JSON-RPC 2.0 request id: a string or an integer (MCP forbids null). */
const JsonRpcId = z.union([z.string().max(200), z.number().int()])
/** `params` of a request or notification: an object (MCP never uses positional params). */
const JsonRpcParams = z.record(z.string(), z.unknown())

/** A request: expects exactly one response with the same `id`. */
export const JsonRpcRequest = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcId,
  method: z.string().min(1).max(200),
  params: JsonRpcParams.optional(),
})
/** A notification: no `id`, no response. */
export const JsonRpcNotification = z.strictObject({
  jsonrpc: z.literal('2.0'),
  method: z.string().min(1).max(200),
  params: JsonRpcParams.optional(),
})
/** A successful response to the request `id`. */
export const JsonRpcResult = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcId,
  result: z.record(z.string(), z.unknown()),
})
/** An error response to the request `id`. */
export const JsonRpcError = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcId,
  error: z.strictObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
})

/** One JSON-RPC 2.0 message as MCP uses it (no batches). */
export const JsonRpcMessage = z.union([JsonRpcRequest, JsonRpcNotification, JsonRpcResult, JsonRpcError])
export type JsonRpcMessage = z.infer<typeof JsonRpcMessage>

/** Whether `message` is a request (it has a `method` and an `id`), so a response will follow. */
export function isJsonRpcRequest(message: JsonRpcMessage): message is z.infer<typeof JsonRpcRequest> {
  return 'method' in message && 'id' in message
}

/**
 * Command `mcp-stdio`: write `message` to the stdin of the stdio server `server` that agent-node
 * runs. A name agent-node's pack does not configure is refused (`ok: false`). The command result
 * says the message was written (`McpStdioWritten`); what the server answers comes back as
 * `mcp-stdio-message` frames.
 */
export const McpStdioCommand = z.strictObject({
  name: z.literal('mcp-stdio'),
  server: McpServerName,
  message: JsonRpcMessage,
})
export type McpStdioCommand = z.infer<typeof McpStdioCommand>

/** Result of a `mcp-stdio` command: the message is on the server's stdin. */
export const McpStdioWritten = z.strictObject({ written: z.literal(true) })
export type McpStdioWritten = z.infer<typeof McpStdioWritten>

/**
 * agent-node -> worker: one message the stdio server `server` wrote to its stdout. A response to
 * a request the edge sent carries `replyTo`, the id of that `mcp-stdio` command frame, and the
 * request's own JSON-RPC id again (agent-node numbers requests itself on the process's stdin, so
 * several edge clients never mix up their ids). Without `replyTo` it is something the server
 * sent on its own (a notification, or a request to the client): the gateway hands it to every
 * relay open on that server.
 */
export const McpStdioMessageFrame = z.strictObject({
  kind: z.literal('mcp-stdio-message'),
  server: McpServerName,
  replyTo: z.uuid().optional(),
  message: JsonRpcMessage,
})
export type McpStdioMessageFrame = z.infer<typeof McpStdioMessageFrame>
