/**
 * The transport factory, keyed by `transport` (manifest spec "mcp"): `streamable-http` and `sse`
 * with the official SDK's client transports, the server's `headers` (plus a user's configured
 * ones) on every request, every request through the outbound guard; `stdio` through the tunnel
 * relay the Worker is given (`TransportDeps.stdio`).
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { McpUnavailableError, type McpServerConfig, type TransportDeps } from './types.ts'

/**
 * A new transport to `server`, sending `headers` on every request (sse, streamable-http).
 * @throws McpUnavailableError for a `stdio` server when no relay is available.
 */
export function createTransport(server: McpServerConfig, headers: Readonly<Record<string, string>>, deps: TransportDeps): Transport {
  const fetch = (url: string | URL, init?: RequestInit) => deps.fetch(String(url), init)
  switch (server.transport) {
    case 'streamable-http':
      return new StreamableHTTPClientTransport(new URL(server.url!), { requestInit: { headers: { ...headers } }, fetch })
    case 'sse':
      return new SSEClientTransport(new URL(server.url!), { requestInit: { headers: { ...headers } }, fetch })
    case 'stdio':
      if (!deps.stdio) throw new McpUnavailableError(server.name, 'no stdio relay is available in this Worker')
      return deps.stdio(server.name)
  }
}
