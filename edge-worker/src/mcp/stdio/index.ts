/**
 * The edge's MCP transport for servers of `transport: stdio` (manifest spec "mcp"): the process
 * runs on the VPS beside agent-node, which starts it from its own copy of the agent pack; the edge
 * reaches it by name through the tunnel gateway and can never name a command. Implements the
 * SDK's `Transport`, so an SDK `Client` uses it like any other transport:
 *
 * - `start`: opens the gateway's stream of what the server sends on its own (notifications,
 *   requests to the client) and hands each message to `onmessage`.
 * - `send`: one `mcp-stdio` command per message (`TunnelGateway.relayMcpStdio`); a request's
 *   response is handed to `onmessage` when it comes. A failure (agent-node not connected, a name
 *   its pack does not configure, the tunnel closed) goes to `onerror` and rejects the send, so the
 *   client's pending request fails with it.
 * - `close`: ends the stream, then `onclose`.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { JsonRpcMessage } from '@parley/shared/tunnel'
import { tunnelGateway } from '../../bindings.ts'
import type { Env } from '../../env.ts'

/** The gateway's RPC methods the transport uses (`TunnelGateway`). */
export interface StdioRelayGateway {
  relayMcpStdio(server: string, message: JsonRpcMessage): Promise<JsonRpcMessage | null>
  mcpStdioMessages(server: string): Promise<ReadableStream<Uint8Array>>
}

/** What `createStdioRelayTransport` needs: the Worker's env (the gateway is found through bindings.ts), or a gateway. */
export type StdioRelayDeps = { env: Env } | { gateway: StdioRelayGateway }

/**
 * A `Transport` to the stdio MCP server `serverName` of agent-node's pack.
 * @param serverName the server's `name` in the pack (the only thing that crosses the tunnel besides the messages)
 */
export function createStdioRelayTransport(serverName: string, deps: StdioRelayDeps): Transport {
  const gateway: StdioRelayGateway = 'gateway' in deps ? deps.gateway : (tunnelGateway(deps.env) as unknown as StdioRelayGateway)
  let reader: ReadableStreamDefaultReader<string> | undefined
  let closed = false

  const transport: Transport = {
    async start() {
      const stream = await gateway.mcpStdioMessages(serverName)
      reader = stream.pipeThrough(new TextDecoderStream()).pipeThrough(lines()).getReader()
      void readAll(reader)
    },
    async send(message) {
      try {
        const reply = await gateway.relayMcpStdio(serverName, message as JsonRpcMessage)
        if (reply && !closed) transport.onmessage?.(reply as JSONRPCMessage)
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error))
        transport.onerror?.(failure)
        throw failure
      }
    },
    async close() {
      if (closed) return
      closed = true
      await reader?.cancel().catch(() => undefined)
      transport.onclose?.()
    },
  }

  async function readAll(from: ReadableStreamDefaultReader<string>): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await from.read()
        if (done || closed) return
        try {
          transport.onmessage?.(deserializeMessage(value))
        } catch (error) {
          transport.onerror?.(new Error(`MCP server '${serverName}' sent a message that is not JSON-RPC: ${(error as Error).message}`))
        }
      }
    } catch (error) {
      if (!closed) transport.onerror?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  return transport
}

/** Splits decoded text into its lines (without the line ends), dropping empty ones. */
function lines(): TransformStream<string, string> {
  let rest = ''
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split('\n')
      rest = parts.pop() ?? ''
      for (const part of parts) if (part.trim() !== '') controller.enqueue(part.replace(/\r$/, ''))
    },
    flush(controller) {
      if (rest.trim() !== '') controller.enqueue(rest)
    },
  })
}
