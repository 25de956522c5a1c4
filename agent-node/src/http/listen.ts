/**
 * Serves a hono app on Node. Resolves with the listening server; rejects with a clear error when
 * the port cannot be bound (EADDRINUSE, EACCES) instead of crashing on an unhandled 'error'.
 */
import type { Server } from 'node:http'
import { serve } from '@hono/node-server'

export function listen(fetch: (request: Request) => Response | Promise<Response>, port: number, hostname?: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname }) as Server
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(new Error(`cannot listen on ${hostname ?? '0.0.0.0'}:${port}: ${error.code ?? error.message}`, { cause: error }))
    })
    server.once('listening', () => resolve(server))
  })
}

/** The port `server` is bound to. */
export function boundPort(server: Server): number {
  const address = server.address()
  return typeof address === 'object' && address ? address.port : 0
}
