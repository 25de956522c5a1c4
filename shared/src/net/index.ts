/**
 * Which IP addresses a service may call on a user's or a pack's behalf (SSRF guard), shared by
 * agent-node's outbound guard and the Worker's: public unicast addresses pass; loopback, private,
 * link-local, unique-local, CGNAT, multicast, reserved and unspecified ones pass only when they
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
  return (value ?? '').split(',').map((entry) => entry.trim()).filter(Boolean)
}

/** Whether `host` (a URL hostname, IPv6 possibly in brackets) is an IP literal. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''))
}

/**
 * Why `address` may not be called, or undefined when it may. IPv4-mapped IPv6 is judged as the
 * IPv4 address.
 * @throws Error when `address` is not an IP address.
 */
export function addressRefusal(allowed: readonly Network[], address: string): string | undefined {
  let parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''))
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  if (allowed.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits))) return undefined
  const range = parsed.range()
  return range === 'unicast' ? undefined : `${address} is a ${range} address and not in OUTBOUND_ALLOWED_NETWORKS`
}
