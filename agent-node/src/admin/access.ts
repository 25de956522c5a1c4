/**
 * Which browsers and names may reach the admin API. The admin port has no authentication (spec
 * "Authentication": bind it to a private interface), and that is not enough against a web page
 * the operator opens: by DNS rebinding the page's own host name resolves to 127.0.0.1 and its
 * script calls the admin API, and a page may open the `/v1/events` WebSocket (browsers do not
 * apply the same-origin policy to WebSocket) and read the event history. So every admin request
 * and upgrade is checked:
 * - `Host` must name one of the allowed hosts (the port is not compared): a rebinding page's
 *   requests carry its own host name;
 * - `Origin`, when present (browsers send it on WebSocket upgrades and on cross-origin or
 *   non-GET requests), must be the admin API's own origin (the one `Host` names, as the API
 *   explorer at `/api` uses) or one of the allowed origins. A request without `Origin` comes from
 *   a program, not a page, and passes.
 * Refused: 403 with the admin error envelope, `error: "forbidden_host"` or `"forbidden_origin"`.
 */
import type { MiddlewareHandler } from 'hono'
import { errorResponse } from './errors.ts'

/** ADMIN_ALLOWED_HOSTS (host names, lower case, IPv6 in brackets; `'*'` any) and ADMIN_ALLOWED_ORIGINS (origins; `'*'` any). */
export interface AdminAccessPolicy {
  allowedHosts: string[] | '*'
  allowedOrigins: string[] | '*'
}

/** Why a request is refused, or undefined when it may go on. */
export type AccessRefusal = { error: 'forbidden_host' | 'forbidden_origin'; message: string }

/** Host names allowed by default: the bind address unless it is a wildcard, and the loopback names. */
export function defaultAllowedHosts(adminHost: string): string[] {
  const hosts = ['localhost', '127.0.0.1', '[::1]']
  const bind = normalizeHost(adminHost)
  if (bind && !['0.0.0.0', '[::]'].includes(bind) && !hosts.includes(bind)) hosts.unshift(bind)
  return hosts
}

/** `host` (a name, an IPv4 or IPv6 address, optionally with a port) as a lower-case host name, IPv6 in brackets; undefined when it is not one. */
export function normalizeHost(host: string): string | undefined {
  const bare = host.includes(':') && !host.startsWith('[') && host.indexOf(':') !== host.lastIndexOf(':') ? `[${host}]` : host
  try {
    const url = new URL(`http://${bare}`)
    return url.username || url.password || url.pathname !== '/' ? undefined : url.hostname
  } catch {
    return undefined
  }
}

/** The origin `value` names (`scheme://host[:port]`), or undefined when it is not one. */
export function normalizeOrigin(value: string): string | undefined {
  try {
    const url = new URL(value)
    return /^https?:$/.test(url.protocol) && url.origin === value.replace(/\/$/, '').toLowerCase() ? url.origin : undefined
  } catch {
    return undefined
  }
}

/** Checks a request's `Host` and `Origin` headers against `policy`. */
export function checkAdminAccess(
  policy: AdminAccessPolicy,
  host: string | undefined,
  origin: string | undefined,
): AccessRefusal | undefined {
  const hostname = host === undefined ? undefined : normalizeHost(host)
  if (policy.allowedHosts !== '*' && (hostname === undefined || !policy.allowedHosts.includes(hostname))) {
    return { error: 'forbidden_host', message: `Host '${host ?? ''}' is not an allowed admin host (ADMIN_ALLOWED_HOSTS)` }
  }
  if (origin === undefined || policy.allowedOrigins === '*') return undefined
  const sameOrigin = host !== undefined && [`http://${host}`, `https://${host}`].includes(origin.toLowerCase())
  if (sameOrigin || policy.allowedOrigins.includes(origin.toLowerCase())) return undefined
  return { error: 'forbidden_origin', message: `Origin '${origin}' may not use the admin API (ADMIN_ALLOWED_ORIGINS)` }
}

/** Hono middleware refusing requests `checkAdminAccess` refuses. */
export function adminAccess(policy: AdminAccessPolicy): MiddlewareHandler {
  return async (c, next) => {
    const refusal = checkAdminAccess(policy, c.req.header('host'), c.req.header('origin'))
    if (refusal) return errorResponse(c, 403, refusal.error, refusal.message)
    await next()
  }
}
