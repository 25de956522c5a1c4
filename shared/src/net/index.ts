/**
 * Which IP addresses a service may call on a user's or a pack's behalf (SSRF guard), shared by
 * agent-node's outbound guard and the Worker's: public unicast addresses pass; loopback, private,
 * link-local, unique-local, CGNAT, multicast, reserved, unspecified and IPv4-compatible ones pass only when they
 * fall in an allow-listed network (`OUTBOUND_ALLOWED_NETWORKS`, CIDR ranges). Pure: no DNS.
 */
import ipaddr from 'ipaddr.js'

/** An allow-listed network: address and prefix length. */
export type Network = [ipaddr.IPv4 | ipaddr.IPv6, number]

/**
 * Parses CIDR ranges (`10.0.0.0/8`, `::1/128`; a bare address means that one address).
 * @throws Error naming the first entry that is not a CIDR range or address.
 */
export function parseNetworks(entries: readonly string[]): Network[] {
  return entries.map((entry) => {
    const value = entry.trim()
    try {
      if (value.includes('/')) return ipaddr.parseCIDR(value)
      const address = ipaddr.parse(value)
      return [address, address.kind() === 'ipv4' ? 32 : 128]
    } catch {
      throw new Error(`'${value}' is not a CIDR range or IP address`)
    }
  })
}

/** The entries of a comma-separated `OUTBOUND_ALLOWED_NETWORKS` value (blank entries dropped). */
export function networkList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
}

/** Whether `host` (a URL hostname, IPv6 possibly in brackets) is an IP literal. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''))
}

/** `::/96`, the IPv4-compatible IPv6 addresses (`::` and `::1` aside, refused under their own names). */
const IPV4_COMPATIBLE = ipaddr.parse('::')

/**
 * Why `address` may not be called, or undefined when it may. IPv4-mapped IPv6 is judged as the
 * IPv4 address; IPv4-compatible IPv6 (`::/96`) is refused.
 * @throws Error when `address` is not an IP address.
 */
export function addressRefusal(allowed: readonly Network[], address: string): string | undefined {
  let parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''))
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  if (allowed.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits))) return undefined
  // ipaddr.js calls IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291) unicast,
  // but they can reach the IPv4 address they embed (::7f00:1 is 127.0.0.1)
  let range: string = parsed.range()
  if (range === 'unicast' && parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE, 96)) range = 'IPv4-compatible (::/96)'
  return range === 'unicast' ? undefined : `${address} is a ${range} address and not in OUTBOUND_ALLOWED_NETWORKS`
}

/** A URL (or an address it resolves to) a guard refuses to call; `reason` says why (for a 4xx body or a tool error). */
export class UnsafeUrlError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`refusing to call ${url}: ${reason}`)
    this.name = 'UnsafeUrlError'
  }
}
