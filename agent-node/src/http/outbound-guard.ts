/**
 * Guard for URLs a user or controller hands the agent to call (presentation callbacks, event
 * subscriptions): the agent must not become a proxy into its own network (SSRF). A URL may reach
 * only public unicast addresses, unless its address falls in an allow-listed network
 * (`OUTBOUND_ALLOWED_NETWORKS`, CIDR ranges).
 *
 * The address is checked where the connection is made, not only when the URL is accepted, so a
 * DNS answer that changes later (rebinding) or a redirect to a private address is refused too:
 * `fetch` runs on an undici dispatcher whose connector checks every address it connects to, and
 * `lookup` does the same for WebSocket clients (`ws` accepts a `lookup` option).
 *
 * Operator-configured URLs (EVENTS_BASE_URL, the tunnel) are trusted and do not go through here.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { Agent, buildConnector, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici'
import { redactedUrl } from '@parley/shared'
import { addressRefusal, parseNetworks, type Network, UnsafeUrlError } from '@parley/shared/net'

export { parseNetworks, UnsafeUrlError } from '@parley/shared/net'

/** Protocols a checked URL may use, by purpose. */
export type UrlKind = 'http' | 'websocket'
const PROTOCOLS: Record<UrlKind, readonly string[]> = { http: ['http:', 'https:'], websocket: ['ws:', 'wss:'] }

export class OutboundGuard {
  private readonly allowed: Network[]
  private readonly dispatcher: Agent

  /** @param allowedNetworks CIDR ranges private addresses may be reached in (see `parseNetworks`). */
  constructor(allowedNetworks: readonly string[] = []) {
    this.allowed = parseNetworks(allowedNetworks)
    const connect = buildConnector({ lookup: this.lookup })
    this.dispatcher = new Agent({
      connect: (options, callback) => {
        // Node skips `lookup` for IP literals, so check those here.
        const host = options.hostname.replace(/^\[|\]$/g, '')
        const refusal = isIP(host) ? this.refusal(host) : undefined
        if (refusal) return callback(new UnsafeUrlError(`${options.protocol}//${options.hostname}`, refusal), null)
        return connect(options, callback)
      },
    })
  }

  /**
   * Why `address` may not be called, or undefined when it may: public unicast addresses and
   * allow-listed ones pass; loopback, private, link-local, unique-local, CGNAT, multicast,
   * reserved and unspecified addresses do not, nor IPv4-compatible IPv6 (`::/96`). IPv4-mapped
   * IPv6 is judged as the IPv4 address.
   */
  refusal(address: string): string | undefined {
    return addressRefusal(this.allowed, address)
  }

  /**
   * Checks `url` before it is accepted (for example in an admin request): its protocol, that it
   * carries no `user:password@`, and every address its host resolves to.
   * @throws UnsafeUrlError for a wrong protocol, credentials, a host that does not resolve, or a
   *   refused address.
   */
  async check(url: string, kind: UrlKind = 'http'): Promise<void> {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new UnsafeUrlError(url, 'not an absolute URL')
    }
    if (!PROTOCOLS[kind].includes(parsed.protocol)) throw new UnsafeUrlError(url, `protocol must be one of ${PROTOCOLS[kind].join(', ')}`)
    if (parsed.username || parsed.password) throw new UnsafeUrlError(redactedUrl(url), 'a URL must not carry a user name or password')
    const host = parsed.hostname.replace(/^\[|\]$/g, '')
    const addresses = isIP(host)
      ? [host]
      : await resolveAll(host).catch(() => {
          throw new UnsafeUrlError(url, `host '${host}' does not resolve`)
        })
    for (const address of addresses) {
      const refusal = this.refusal(address)
      if (refusal) throw new UnsafeUrlError(url, refusal)
    }
  }

  /**
   * `fetch` whose every connection, redirects included, is checked. Rejects with a `TypeError`
   * whose `cause` is an UnsafeUrlError when an address is refused (and, as every WHATWG fetch,
   * with a `TypeError` for a URL carrying credentials). A bound function: pass it as a `fetch`.
   */
  readonly fetch = (url: string | URL, init: Omit<UndiciRequestInit, 'dispatcher'> = {}): Promise<Response> => {
    return undiciFetch(url, { ...init, dispatcher: this.dispatcher }) as unknown as Promise<Response>
  }

  /** A `dns.lookup` replacement that fails with UnsafeUrlError for a refused address (for `ws`). */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0)
      const refused = addresses.map((entry) => this.refusal(entry.address)).find(Boolean)
      if (refused) return callback(new UnsafeUrlError(hostname, refused), '', 0)
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
      return callback(null, addresses[0]!.address, addresses[0]!.family)
    })
  }

  /** Closes idle connections of the dispatcher. */
  async close(): Promise<void> {
    await this.dispatcher.close()
  }
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((entry) => entry.address))))
  })
}
