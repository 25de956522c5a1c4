/**
 * The edge's stdio relay transport against a stand-in gateway (unit scope; the real gateway and
 * tunnel are in test/e2e/mcp-stdio.test.ts): responses to requests, the server's own messages from
 * the stream (split across chunks), failures, close.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { JsonRpcMessage } from '@parley/shared/tunnel'
import { describe, expect, it } from 'vitest'
import { createStdioRelayTransport, type StdioRelayGateway } from '../../src/mcp/stdio/index.ts'

function fakeGateway(answer: (message: JsonRpcMessage) => JsonRpcMessage | null | Error) {
  const sent: { server: string; message: JsonRpcMessage }[] = []
  let push!: ReadableStreamDefaultController<Uint8Array>
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      push = controller
    },
  })
  const gateway: StdioRelayGateway = {
    async relayMcpStdio(server, message) {
      sent.push({ server, message })
      const outcome = answer(message)
      if (outcome instanceof Error) throw outcome
      return outcome
    },
    async mcpStdioMessages() {
      return stream
    },
  }
  return { gateway, sent, push: (text: string) => push.enqueue(new TextEncoder().encode(text)) }
}

describe('createStdioRelayTransport', () => {
  it("sends by server name and hands responses and the server's own messages to onmessage", async () => {
    const { gateway, sent, push } = fakeGateway((message) =>
      'method' in message && 'id' in message ? { jsonrpc: '2.0', id: message.id, result: { ok: true } } : null,
    )
    const transport = createStdioRelayTransport('files', { gateway })
    const received: JSONRPCMessage[] = []
    transport.onmessage = (message) => received.push(message)
    await transport.start()
    await transport.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' })
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(sent).toEqual([
      { server: 'files', message: { jsonrpc: '2.0', id: 3, method: 'tools/list' } },
      { server: 'files', message: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    ])
    push('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n{"jsonrpc":"2.0","method":"notifi')
    push('cations/message","params":{"level":"info","data":"x"}}\n')
    await expect.poll(() => received.length).toBe(3)
    expect(received).toEqual([
      { jsonrpc: '2.0', id: 3, result: { ok: true } },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
    ])
  })

  it('rejects a send the gateway fails, reports it to onerror, and closes once', async () => {
    const refusal = new Error("agent-node refused the mcp-stdio message: server: no stdio MCP server named 'x' in agent-node's agent pack")
    const { gateway } = fakeGateway(() => refusal)
    const transport = createStdioRelayTransport('x', { gateway })
    const errors: Error[] = []
    let closes = 0
    transport.onerror = (error) => errors.push(error)
    transport.onclose = () => closes++
    await transport.start()
    await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).rejects.toBe(refusal)
    expect(errors).toEqual([refusal])
    await transport.close()
    await transport.close()
    expect(closes).toBe(1)
  })
})
