/**
 * A TCP proxy on loopback that can hold a connection's bytes back and deliver them later, as a
 * proxy that queues requests while its backend restarts does (`wrangler dev`'s own proxy holds
 * them until the Worker is ready, and forwards them even when the client gave up meanwhile).
 * While `holding`, a new connection is read and buffered, not forwarded; `release` delivers each
 * held request to the backend on a connection of its own, waits for the backend's first answer
 * and then drops that connection (its client is usually gone by then). Every other connection is
 * piped through.
 */
import { connect, createServer, type Socket } from 'node:net'
import { joinSockets } from './tcp-pipe.ts'

/** How long a released connection waits for the backend's first answer before it is dropped, ms. */
const RELEASE_TIMEOUT_MS = 10_000

export interface HoldingProxy {
  /** The port clients dial. */
  readonly port: number
  /** Whether new connections are held (until `release`) instead of piped through. */
  holding: boolean
  /** Connections held so far and not released. */
  readonly held: number
  /** Delivers every held connection's bytes to the backend; resolves once each got an answer, failed or waited `RELEASE_TIMEOUT_MS`. */
  release(): Promise<void>
  close(): Promise<void>
}

/** Starts the proxy in front of the loopback port `backend`. */
export async function startHoldingProxy(backend: number): Promise<HoldingProxy> {
  const sockets = new Set<Socket>()
  const held: Buffer[][] = []
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const server = createServer((client) => {
    track(client)
    if (proxy.holding) {
      const chunks: Buffer[] = []
      held.push(chunks)
      client.on('data', (chunk: Buffer) => chunks.push(chunk))
      return
    }
    client.pause()
    const upstream = connect(backend, '127.0.0.1', () => joinSockets(client, upstream))
    track(upstream)
    upstream.once('error', () => client.destroy()) // the backend refused it
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))

  const deliver = (chunks: Buffer[]) =>
    new Promise<void>((resolve) => {
      const upstream = connect(backend, '127.0.0.1', () => upstream.write(Buffer.concat(chunks)))
      track(upstream)
      upstream.once('data', () => upstream.destroy())
      // a backend that never answers does not keep `release` waiting
      upstream.setTimeout(RELEASE_TIMEOUT_MS, () => upstream.destroy())
      upstream.once('close', () => resolve())
    })

  const proxy: HoldingProxy = {
    port: (server.address() as { port: number }).port,
    holding: false,
    get held() {
      return held.length
    },
    async release() {
      await Promise.all(held.splice(0).map(deliver))
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  return proxy
}
