/** The HTTP answer (status, JSON body) agent-node gives a WebSocket upgrade it refuses on its admin port. */
import WebSocket from 'ws'
import type { TestAgentNode } from './agent-node.ts'

/** The HTTP answer to an upgrade of `path` the agent refuses; rejects if it is accepted. */
export function refusedUpgrade(
  agent: TestAgentNode,
  path: string,
): Promise<{ status: number; body: { error: string; message?: string; issues?: { field: string }[] } }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${agent.node.adminPort}${path}`)
    socket.once('open', () => reject(new Error(`${path} was accepted`)))
    socket.once('unexpected-response', (_request, response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => (body += chunk.toString()))
      response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(body) }))
    })
    socket.once('error', () => undefined)
  })
}
