/**
 * An SDK `Transport` straight onto a `McpStdioSupervisor` (no tunnel): what the `mcp-stdio`
 * command handler and the `mcp-stdio-message` frames do, in one process, so tests and benches
 * can drive an SDK `Client` through agent-node's relay.
 */
import { randomUUID } from 'node:crypto'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { JsonRpcMessage } from '@parley/shared/tunnel'
import type { McpStdioSupervisor } from '../../src/mcp/index.ts'

export function supervisorTransport(supervisor: McpStdioSupervisor, server: string): Transport {
  const mine = new Set<string>()
  let unsubscribe: (() => void) | undefined
  const transport: Transport = {
    async start() {
      unsubscribe = supervisor.onMessage((frame) => {
        if (frame.server !== server) return
        if (frame.replyTo !== undefined && !mine.delete(frame.replyTo)) return
        transport.onmessage?.(frame.message as JSONRPCMessage)
      })
    },
    async send(message) {
      const commandId = randomUUID()
      if ('method' in message && 'id' in message) mine.add(commandId)
      await supervisor.relay(server, message as JsonRpcMessage, commandId)
    },
    async close() {
      unsubscribe?.()
      transport.onclose?.()
    },
  }
  return transport
}
