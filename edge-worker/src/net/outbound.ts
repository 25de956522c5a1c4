/**
 * The Worker's outbound guard: `fetch` for URLs that come from a pack or a user (HTTP tools,
 * the statistics API), refusing internal addresses the way agent-node's guard does
 * (`@parley/shared/net`: public unicast only, unless in `OUTBOUND_ALLOWED_NETWORKS`).
 *
 * workerd has no DNS lookup API, so the check is on the URL's host: IP literals are judged by
 * their address, `localhost` and `*.localhost` as 127.0.0.1; other names pass (on Cloudflare a
 * Worker's `fetch` reaches only the public internet). Redirects are followed by hand, at most
 * `MAX_REDIRECTS`, every hop is checked again, and each hop's request is derived as the Fetch
 * Standard's "HTTP-redirect fetch" derives it (`redirectRequest`): credentials do not follow a
 * redirect to another origin.
 */
import type { Logger } from '../logging/index.ts'
import { addressRefusal, isIpLiteral, networkList, parseNetworks, type Network, UnsafeUrlError } from '@parley/shared/net'

export { UnsafeUrlError } from '@parley/shared/net'

/** Redirects followed per request. */
export const MAX_REDIRECTS = 5

/** `fetch` with the guard applied. */
export type GuardedFetch = (url: string, init?: RequestInit) => Promise<Response>

/** The statuses the Fetch Standard follows as redirects ("redirect status"). */
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

/**
 * The request headers forwarded to another origin. Every other caller header is dropped on a
 * cross-origin hop: the Fetch Standard drops only `Authorization`, but callers here also carry
 * credentials in `Cookie` and in headers of any name (an HTTP tool's `authHeader`, an MCP
 * server's configured `headers`), which the guard cannot tell from harmless ones.
 */
const CROSS_ORIGIN_HEADERS: readonly string[] = ['accept', 'accept-language', 'user-agent']

/** Headers that describe the body: the Fetch Standard's "request-body-header names" and `content-length`. */
const BODY_HEADERS: readonly string[] = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length']

/** One hop's request. */
interface HopRequest {
  url: URL
  /** As the caller gave it; compared case-insensitively. */
  method: string
  headers: Headers
  body: RequestInit['body']
}

/**
 * The request to send after a response with `status` and `location` (its `Location` header, or
 * null) to `current`, following the Fetch Standard, HTTP-redirect fetch:
 * - not a redirect status (301, 302, 303, 307, 308) or no `Location`: undefined (no next hop);
 * - the next URL is `location` resolved against `current.url`;
 * - 303 with a method other than GET or HEAD, and 301 or 302 after POST: method GET, no body, and
 *   the body headers (`content-type`, `content-length`, `content-encoding`, `content-language`,
 *   `content-location`) removed; otherwise (307, 308, and 301/302 of other methods) method and
 *   body are kept;
 * - next URL of another origin than `current.url`: only `CROSS_ORIGIN_HEADERS` are kept, plus the
 *   body headers while there is a body (stricter than the standard, which drops `Authorization`
 *   only). The next hop starts from this request, so headers dropped once stay dropped when a
 *   later redirect leads back to the first origin.
 * Pure: does not check the next URL's address (the caller does).
 * @throws TypeError when `location` is not a URL, or when the body is a `ReadableStream` (it cannot
 *   be read twice) and `status` is not 303 (the standard's network error, 301 and 302 included).
 */
function redirectRequest(current: HopRequest, status: number, location: string | null): HopRequest | undefined {
  if (!REDIRECT_STATUSES.has(status) || location === null) return undefined
  const url = new URL(location, current.url)
  const method = current.method.toUpperCase()
  const toGet = (status === 303 && method !== 'GET' && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')
  if (status !== 303 && current.body instanceof ReadableStream) {
    throw new TypeError(`cannot follow the ${status} redirect to ${url.href}: a streamed body cannot be sent again`)
  }
  const headers = new Headers(current.headers)
  const body = toGet ? undefined : current.body
  if (body === undefined || body === null) for (const name of BODY_HEADERS) headers.delete(name)
  if (url.origin !== current.url.origin) {
    const kept = body === undefined || body === null ? CROSS_ORIGIN_HEADERS : [...CROSS_ORIGIN_HEADERS, ...BODY_HEADERS]
    for (const name of [...headers.keys()]) if (!kept.includes(name)) headers.delete(name)
  }
  return { url, method: toGet ? 'GET' : current.method, headers, body }
}

function refusal(allowed: readonly Network[], url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'protocol must be http: or https:'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return addressRefusal(allowed, '127.0.0.1')
  return isIpLiteral(host) ? addressRefusal(allowed, host) : undefined
}

/**
 * A guarded `fetch` for `allowedNetworks` (the `OUTBOUND_ALLOWED_NETWORKS` value, comma-separated
 * CIDR ranges), calling `fetcher` (one call per hop, with `redirect: 'manual'`). Redirects are
 * followed as `redirectRequest` says (Fetch Standard, HTTP-redirect fetch; the caller's `redirect`
 * option is ignored); the last response is returned as is, including a 3xx that is not a redirect.
 * The returned function rejects with UnsafeUrlError for a refused URL (any hop) or more than
 * `MAX_REDIRECTS` redirects, with TypeError as `redirectRequest` throws, and as `fetcher` rejects.
 * @throws Error naming the first entry of `allowedNetworks` that is not a network.
 */
export function guardedFetch(allowedNetworks: string | undefined, fetcher: typeof fetch = fetch): GuardedFetch {
  const allowed = parseNetworks(networkList(allowedNetworks))
  return async (url, init = {}) => {
    let request: HopRequest = { url: new URL(url), method: init.method ?? 'GET', headers: new Headers(init.headers), body: init.body }
    for (let hop = 0; ; hop++) {
      const reason = refusal(allowed, request.url)
      if (reason) throw new UnsafeUrlError(request.url.href, reason)
      const { method, headers, body } = request
      const response = await fetcher(request.url.href, { ...init, method, headers, body, redirect: 'manual' })
      let next: HopRequest | undefined
      try {
        next = redirectRequest(request, response.status, response.headers.get('location'))
        if (next && hop >= MAX_REDIRECTS) throw new UnsafeUrlError(request.url.href, `more than ${MAX_REDIRECTS} redirects`)
      } catch (error) {
        await response.body?.cancel()
        throw error
      }
      if (!next) return response
      await response.body?.cancel()
      request = next
    }
  }
}

/**
 * The guarded `fetch` of a Worker whose `OUTBOUND_ALLOWED_NETWORKS` var is `allowedNetworks`: a
 * value that is not a list of networks is logged with `log` and ignored (public addresses only).
 */
export function workerGuardedFetch(allowedNetworks: unknown, log: Pick<Logger, 'error'>): GuardedFetch {
  try {
    return guardedFetch(typeof allowedNetworks === 'string' ? allowedNetworks : undefined)
  } catch (error) {
    log.error('OUTBOUND_ALLOWED_NETWORKS ignored', { error: (error as Error).message })
    return guardedFetch(undefined)
  }
}
