/** The loopback TCP proxies of the tests (`tcp-balancer.ts`, `holding-proxy.ts`) join their sockets here. */
import type { Socket } from 'node:net'

/**
 * Pipes the paused `client` and its connected `upstream` into each other and resumes the client;
 * either one closing or failing destroys the other.
 */
export function joinSockets(client: Socket, upstream: Socket): void {
  upstream.on('close', () => client.destroy())
  upstream.on('error', () => client.destroy())
  client.on('error', () => upstream.destroy())
  client.on('close', () => upstream.destroy())
  client.pipe(upstream)
  upstream.pipe(client)
  client.resume()
}
