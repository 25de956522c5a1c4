/**
 * The tunnel gateway's side of the stdio MCP relay (manifest spec "mcp", `transport: stdio`):
 * the processes run beside agent-node, and the edge reaches them by server name through
 * `mcp-stdio` command frames (shared/src/tunnel/mcp-stdio.ts).
 *
 * - A message the edge sends goes down as a command frame at once, not through the outbox: it is
 *   part of a live MCP session, and replaying it after a reconnect could run a tool twice. With
 *   no agent connected, sending fails at once.
 * - A request is answered by the `mcp-stdio-message` frame whose `replyTo` is its command id; a
 *   notification or a response to the server is done when agent-node's command result says it
 *   was written. A refusal (`ok: false`: a server agent-node's pack does not configure) fails it.
 * - What a server sends on its own (`mcp-stdio-message` without `replyTo`) goes to every open
 *   message stream of that server, as newline-delimited JSON.
 * - When the agent socket closes, every message still waiting fails.
 *
 * State is in memory only: a waiting RPC call keeps the Durable Object alive.
 */
import {
  isJsonRpcRequest,
  type CommandFrame,
  type CommandResultFrame,
  type JsonRpcMessage,
  type McpStdioMessageFrame,
} from '@parley/shared/tunnel'

/** How long a request waits for its answer before it fails; milliseconds (the MCP client usually gives up first). */
export const MCP_STDIO_REPLY_TIMEOUT_MS = 10 * 60_000

interface Waiting {
  server: string
  expectsReply: boolean
  settle: (outcome: JsonRpcMessage | null | Error) => void
}

export class McpStdioRelays {
  private readonly waiting = new Map<string, Waiting>()
  private readonly streams = new Map<string, Set<WritableStreamDefaultWriter<Uint8Array>>>()
  private readonly encoder = new TextEncoder()

  /**
   * Sends `message` for `server` down `send` (which throws when no agent is connected) and waits.
   * @returns the response to a request; `null` for a notification or a response, once written.
   * @throws when agent-node refuses it (its error names the field), the tunnel closes first, or
   *   no answer comes within `timeoutMs`.
   */
  relay(
    server: string,
    message: JsonRpcMessage,
    send: (frame: CommandFrame) => void,
    timeoutMs = MCP_STDIO_REPLY_TIMEOUT_MS,
  ): Promise<JsonRpcMessage | null> {
    const id = crypto.randomUUID()
    const frame: CommandFrame = { kind: 'command', id, idempotencyKey: `mcp-stdio:${id}`, command: { name: 'mcp-stdio', server, message } }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle(new Error(`MCP server '${server}': no answer within ${timeoutMs} ms`)), timeoutMs)
      const settle = (outcome: JsonRpcMessage | null | Error) => {
        clearTimeout(timer)
        this.waiting.delete(id)
        if (outcome instanceof Error) reject(outcome)
        else resolve(outcome)
      }
      this.waiting.set(id, { server, expectsReply: isJsonRpcRequest(message), settle })
      try {
        send(frame)
      } catch (error) {
        settle(error instanceof Error ? error : new Error(String(error)))
      }
    })
  }

  /** A command result: true when it was one of ours (then it is handled here). */
  settleResult(result: CommandResultFrame): boolean {
    const waiting = this.waiting.get(result.id)
    if (!waiting) return false
    if (!result.ok) waiting.settle(new Error(`agent-node refused the mcp-stdio message: ${result.error}`))
    else if (!waiting.expectsReply) waiting.settle(null)
    return true
  }

  /** A message a server wrote: the answer to a waiting request, or one for the server's streams. */
  receive(frame: McpStdioMessageFrame): void {
    if (frame.replyTo !== undefined) {
      this.waiting.get(frame.replyTo)?.settle(frame.message)
      return
    }
    const line = this.encoder.encode(`${JSON.stringify(frame.message)}\n`)
    for (const writer of this.streams.get(frame.server) ?? []) {
      writer.write(line).catch(() => this.streams.get(frame.server)?.delete(writer))
    }
  }

  /** A byte stream of what `server` sends on its own, one JSON-RPC message per line, until the reader cancels it. */
  open(server: string): ReadableStream<Uint8Array> {
    const { readable, writable } = new IdentityTransformStream()
    const writer = writable.getWriter()
    const writers = this.streams.get(server) ?? new Set()
    this.streams.set(server, writers)
    writers.add(writer)
    writer.closed.catch(() => undefined).finally(() => this.streams.get(server)?.delete(writer))
    return readable
  }

  /** The agent socket closed: every message still waiting fails. */
  closed(): void {
    for (const { server, settle } of [...this.waiting.values()])
      settle(new Error(`MCP server '${server}': the tunnel to agent-node closed`))
  }
}
