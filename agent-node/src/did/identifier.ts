/**
 * The agent's public DID as configured, and where any did:web / did:webvh DID is published.
 *
 * - `did:web:<host>` (W3C CCG did:web): the document is `https://<host>/.well-known/did.json`;
 *   with path segments `did:web:<host>:a:b`, `https://<host>/a/b/did.json`.
 * - `did:webvh:<SCID>:<host>` (DIF did:webvh v1.0): the log is `https://<host>/.well-known/did.jsonl`
 *   (with path segments, `https://<host>/a/b/did.jsonl`). The operator configures
 *   `did:webvh:<host>` only; the SCID is derived from the first log entry when the DID is created.
 *
 * In both, a port is written `%3A<port>` (`did:web:localhost%3A3001`). Plain `http` is used for
 * loopback hosts only (`localhost`, `127.0.0.0/8`, `[::1]`), so tests and a laptop can resolve;
 * every other host is fetched over `https`, as both method specifications require.
 */

/** DID methods the agent can hold and resolve. */
export type PublicDidMethod = 'web' | 'webvh'

/** The public DID as configured (AGENT_PUBLIC_DID): method and host, without the SCID. */
export interface ConfiguredPublicDid {
  method: PublicDidMethod
  /** Host as in a URL, port included when not the default (`agent.example.com`, `localhost:3001`). */
  host: string
  /** The configured string, normalized: `did:<method>:<host with %3A port>`. */
  configured: string
}

const HOST = /^[a-z0-9.-]+(%3A[0-9]{1,5})?$/i

/**
 * Parses AGENT_PUBLIC_DID: `did:web:<host>` or `did:webvh:<host>` (host may carry `%3A<port>`;
 * no path segments, no SCID — the SCID is computed when the DID is created).
 * @throws Error saying what is wrong.
 */
export function parseConfiguredDid(value: string): ConfiguredPublicDid {
  const match = /^did:(web|webvh):(.+)$/.exec(value)
  if (!match) throw new Error(`'${value}' is not did:web:<host> or did:webvh:<host>`)
  const method = match[1] as PublicDidMethod
  const hostPart = match[2]!
  if (!HOST.test(hostPart)) {
    throw new Error(`'${value}': expected a host name with an optional %3A<port>, nothing else (no path, no SCID)`)
  }
  const host = decodeHost(hostPart)
  if (method === 'webvh' && isIpAddress(hostName(host))) {
    throw new Error(`'${value}': did:webvh does not allow an IP address as host; use a name (localhost for local use)`)
  }
  return { method, host, configured: didFor(method, host) }
}

/** `did:<method>:<host>` with the port written `%3A<port>`. */
export function didFor(method: PublicDidMethod, host: string): string {
  return `did:${method}:${host.toLowerCase().replace(':', '%3A')}`
}

/** True for `localhost`, `127.x.x.x` and `::1` (bracketed or not). */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '')
  return name === 'localhost' || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
}

/** True when `hostname` is an IPv4 or (bracketed) IPv6 literal. */
export function isIpAddress(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.includes(':') || hostname.startsWith('[')
}

/** `https:`, or `http:` for loopback hosts (see the module comment). */
export function schemeFor(host: string): 'http' | 'https' {
  return isLoopbackHost(hostName(host)) ? 'http' : 'https'
}

/**
 * The URL a did:web DID's document (`did.json`) or a did:webvh DID's log (`did.jsonl`) is
 * published at.
 * @throws Error when `did` is not a did:web / did:webvh DID or its host is malformed.
 */
export function publicationUrl(did: string): URL {
  const parts = did.split(':')
  if (parts[0] !== 'did' || (parts[1] !== 'web' && parts[1] !== 'webvh')) throw new Error(`not a did:web or did:webvh DID: ${did}`)
  const method = parts[1] as PublicDidMethod
  // did:webvh:<SCID>:<host>[:path…]; did:web:<host>[:path…]
  const [hostPart, ...path] = method === 'webvh' ? parts.slice(3) : parts.slice(2)
  if (!hostPart || !HOST.test(hostPart)) throw new Error(`malformed host in ${did}`)
  const segments = path.map(pathSegment)
  if (segments.some((segment) => segment === undefined)) throw new Error(`malformed path in ${did}`)
  const host = decodeHost(hostPart)
  const file = method === 'webvh' ? 'did.jsonl' : 'did.json'
  const folder = segments.length > 0 ? segments.join('/') : '.well-known'
  return new URL(`${schemeFor(host)}://${host}/${folder}/${file}`)
}

/**
 * One path segment of a did:web DID, percent-decoded; undefined when it could leave its place in
 * the URL path: an encoded `/` or `\\` (`%2F`), `?` or `#`, or a `.` / `..` segment.
 */
function pathSegment(segment: string): string | undefined {
  if (!/^[A-Za-z0-9._~%-]+$/.test(segment)) return undefined
  let decoded: string
  try {
    decoded = decodeURIComponent(segment)
  } catch {
    return undefined
  }
  if (/[/\\?#]/.test(decoded) || decoded === '.' || decoded === '..') return undefined
  return encodeURIComponent(decoded)
}

function decodeHost(hostPart: string): string {
  return hostPart.replace(/%3A/i, ':').toLowerCase()
}

function hostName(host: string): string {
  return host.replace(/:\d+$/, '')
}
