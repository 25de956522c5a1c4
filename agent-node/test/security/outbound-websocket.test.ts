/**
 * A peer's WebSocket endpoint answering garbage to agent-node's outbound DIDComm socket (Credo's
 * WebSocket outbound transport, in-process agent-node): the frames are refused, that socket is
 * closed with 1007, and agent-node keeps serving. Before the guard, Credo's listener threw and
 * the throw escaped as an uncaught exception (vitest fails a run on one).
 */
import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { bogusEnvelope } from '../support/envelopes.ts'

describe('outbound DIDComm WebSocket to a hostile endpoint', () => {
  let agent: TestAgentNode
  const server = createServer()
  const peer = new WebSocketServer({ server })
  const closeCodes: number[] = []
  let endpoint: string

  beforeAll(async () => {
    agent = await startTestAgentNode({}, { label: 'outbound-ws' })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    endpoint = `ws://127.0.0.1:${(server.address() as { port: number }).port}`
  }, 120_000)
  afterAll(async () => {
    for (const client of peer.clients) client.terminate()
    await new Promise((resolve) => server.close(resolve))
    await agent?.close()
  })

  it.each([
    ['a frame that is not JSON', 'not json at all'],
    ['JSON that is not a DIDComm envelope', '{"hello":"world"}'],
  ])('%s closes that socket with 1007; agent-node keeps serving', async (_what, garbage) => {
    const closed = new Promise<number>((resolve) =>
      peer.once('connection', (socket) => {
        socket.once('message', () => socket.send(garbage))
        socket.once('close', (code) => resolve(code))
      }),
    )
    const transport = agent.node.agent.modules.didcomm.outboundTransports.find((t) => t.supportedSchemes.includes('ws'))!
    await transport.sendMessage({
      payload: JSON.parse(bogusEnvelope(1)),
      endpoint,
      connectionId: crypto.randomUUID(),
      responseRequested: true,
    })
    closeCodes.push(await closed)
    expect(closeCodes.at(-1)).toBe(1007)
    const health = await fetch(`http://127.0.0.1:${agent.node.publicPort}/health`)
    expect(health.status).toBe(200)
  })
})
