/**
 * The Worker's outbound guard: `fetch` for URLs that come from a pack or a user (HTTP tools,
 * the statistics API), refusing internal addresses the way agent-node's guard does
 * (`@parley/shared/net`: public unicast only, unless in `OUTBOUND_ALLOWED_NETWORKS`).
 *
 * workerd has no DNS lookup API, so the check is on the URL's host: IP literals are judged by
 * their address, `localhost` and `*.localhost` as 127.0.0.1; other names pass (on Cloudflare a
 * Worker's `fetch` reaches only the public internet). Redirects are followed by hand, at most
 * `MAX_REDIRECTS`, and every hop is checked again.
 */
import type { Logger } from '../logging/index.ts'
import { addressRefusal, isIpLiteral, networkList, parseNetworks, type Network, UnsafeUrlError } from '@parley/shared/net'

export { UnsafeUrlError } from '@parley/shared/net'

/** Redirects followed per request. */
export const MAX_REDIRECTS = 5

/** `fetch` with the guard applied. */
export type GuardedFetch = (url: string, init?: RequestInit) => Promise<Response>

function refusal(allowed: readonly Network[], url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'protocol must be http: or https:'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return addressRefusal(allowed, '127.0.0.1')
  return isIpLiteral(host) ? addressRefusal(allowed, host) : undefined
}

/**
 * A guarded `fetch` for `allowedNetworks` (the `OUTBOUND_ALLOWED_NETWORKS` value, comma-separated
 * CIDR ranges).
 * @throws Error naming the first entry of `allowedNetworks` that is not a network.
 */
export function guardedFetch(allowedNetworks: string | undefined, fetcher: typeof fetch = fetch): GuardedFetch {
  const allowed = parseNetworks(networkList(allowedNetworks))
  return async (url, init = {}) => {
    let target = new URL(url)
    for (let hop = 0; ; hop++) {
      const reason = refusal(allowed, target)
      if (reason) throw new UnsafeUrlError(target.href, reason)
      const response = await fetcher(target.href, { ...init, redirect: 'manual' })
      const location = response.headers.get('location')
      if (response.status < 300 || response.status >= 400 || !location) return response
      if (hop >= MAX_REDIRECTS) throw new UnsafeUrlError(target.href, `more than ${MAX_REDIRECTS} redirects`)
      await response.body?.cancel()
      target = new URL(location, target)
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
