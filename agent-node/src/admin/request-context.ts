/**
 * The request id and the request's logger. Every admin request gets an id: the caller's
 * `X-Request-Id` when it is sane (1 to 128 characters of letters, digits, `_`, `-`, `=`), otherwise a
 * new UUID; the answer carries it back in `X-Request-Id` (hono `requestId`). Handlers and the
 * error handler log through `c.get('logger')`, a child of the admin logger whose every line
 * carries `requestId`; each request ends with one debug line (method, path, status, duration).
 */
import type { MiddlewareHandler } from 'hono'
import { requestId } from 'hono/request-id'
import type { Logger } from '../logging/index.ts'
import type { AdminEnv } from './openapi.ts'

/** The request header (and response header) carrying the request id. */
export const REQUEST_ID_HEADER = 'X-Request-Id'

/** Longest caller-chosen request id kept; a longer one is replaced. */
export const MAX_REQUEST_ID_LENGTH = 128

/** The two middlewares: request id first, then the request's logger. */
export function requestContext(logger: Logger): MiddlewareHandler<AdminEnv>[] {
  return [
    requestId({ headerName: REQUEST_ID_HEADER, limitLength: MAX_REQUEST_ID_LENGTH }),
    async (c, next) => {
      const requestLogger = logger.child({ requestId: c.get('requestId') })
      c.set('logger', requestLogger)
      const started = performance.now()
      await next()
      const ms = Math.round(performance.now() - started)
      requestLogger.debug({ method: c.req.method, path: c.req.path, status: c.res.status, ms }, 'admin request')
    },
  ]
}
