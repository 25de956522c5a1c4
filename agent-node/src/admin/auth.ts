/**
 * Optional bearer-token authentication of the admin port (ADMIN_API_TOKENS), for operators who
 * cannot keep it on a private interface. With tokens configured, every admin request but the
 * health probes and the API explorer's page, assets and document must carry
 * `Authorization: Bearer <one of the tokens>`, the `/v1/events` WebSocket upgrade included;
 * otherwise the answer is 401 with the admin error envelope. Without tokens nothing changes
 * (the spec's "Authentication": a private network only). Several tokens allow rotation.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { errorResponse } from './errors.ts'

/** Paths answered without a token: liveness and readiness probes, and the explorer (its calls need one). */
const OPEN_PATHS = [/^\/healthz$/, /^\/readyz$/, /^\/api$/, /^\/api\/openapi\.json$/, /^\/api\/assets\//]

/** The admin API's accepted bearer tokens; none configured means no authentication. */
export class AdminTokens {
  private readonly digests: Buffer[]

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map(digest)
  }

  get enabled(): boolean {
    return this.digests.length > 0
  }

  /** Whether `path` needs a token. */
  guards(path: string): boolean {
    return this.enabled && !OPEN_PATHS.some((open) => open.test(path))
  }

  /**
   * Whether an `Authorization` header value carries an accepted token (`Bearer <token>`).
   * Compared in constant time over SHA-256 digests, so neither content nor length leaks.
   */
  accepts(authorization: string | undefined): boolean {
    const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '')
    if (!match) return false
    const presented = digest(match[1]!)
    let accepted = false
    for (const known of this.digests) accepted = timingSafeEqual(known, presented) || accepted
    return accepted
  }

  /** The hono middleware: 401 `unauthorized` on a guarded path without an accepted token. */
  middleware(): MiddlewareHandler {
    return async (c, next) => {
      if (this.guards(c.req.path) && !this.accepts(c.req.header('authorization'))) {
        c.header('www-authenticate', 'Bearer realm="parley-admin"')
        return errorResponse(c, 401, 'unauthorized', 'this admin API needs Authorization: Bearer <token> (ADMIN_API_TOKENS)')
      }
      await next()
    }
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest()
}
