/**
 * Serves a hono app on Node. Resolves with the listening server; rejects with a clear error when
 * the port cannot be bound (EADDRINUSE, EACCES) instead of crashing on an unhandled 'error'.
 * Once it listens, later server errors (an `accept` failing with EMFILE when a peer opens more
 * connections than there are file descriptors) are logged (to `logger`, by default a new
 * process logger at info), and the server keeps accepting.
 */
import type { Server } from 'node:http'
import { serve } from '@hono/node-server'
import { createLogger, type Logger } from '../logging/index.ts'

export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  port: number,
  hostname?: string,
  logger: Logger = createLogger('info'),
): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname }) as Server
    const onStartError = (error: NodeJS.ErrnoException) => {
      reject(new Error(`cannot listen on ${hostname ?? '0.0.0.0'}:${port}: ${error.code ?? error.message}`, { cause: error }))
    }
    server.once('error', onStartError)
    server.once('listening', () => {
      server.off('error', onStartError)
      server.on('error', (error: NodeJS.ErrnoException) => {
        logger.error({ err: error, port }, 'server error; still listening')
      })
      resolve(server)
    })
  })
}

/** The port `server` is bound to. */
export function boundPort(server: Server): number {
  const address = server.address()
  return typeof address === 'object' && address ? address.port : 0
}
