/**
 * A TCP load balancer on loopback, in front of several agent-nodes' public ports, as an operator
 * puts one in front of a cluster: each incoming connection goes to the backend `prefer` names,
 * or to the next one that accepts it when that one is down (a killed instance). Connections are
 * counted per backend.
 */
import { createServer, connect, type Socket } from 'node:net'
import { joinSockets } from './tcp-pipe.ts'

export interface TcpBalancer {
  /** The port wallets dial. */
  readonly port: number
  /** Connections each backend (by index) accepted. */
  readonly accepted: number[]
  /** The backend new connections try first (index into the backends). */
  prefer: number
  close(): Promise<void>
}

/** Starts the balancer in front of `backends` (loopback ports). */
export async function startTcpBalancer(backends: readonly number[]): Promise<TcpBalancer> {
  const sockets = new Set<Socket>()
  const balancer: TcpBalancer = { port: 0, accepted: backends.map(() => 0), prefer: 0, close }
  const server = createServer((client) => {
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    client.pause()
    const tryBackend = (attempt: number) => {
      if (attempt >= backends.length) return client.destroy()
      const index = (balancer.prefer + attempt) % backends.length
      const upstream = connect(backends[index]!, '127.0.0.1')
      let connected = false
      upstream.once('error', () => {
        if (!connected) tryBackend(attempt + 1)
        else client.destroy()
      })
      upstream.once('connect', () => {
        connected = true
        balancer.accepted[index]!++
        sockets.add(upstream)
        upstream.on('close', () => sockets.delete(upstream))
        joinSockets(client, upstream)
      })
    }
    tryBackend(0)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  Object.assign(balancer, { port: (server.address() as { port: number }).port })

  async function close(): Promise<void> {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  }
  return balancer
}
