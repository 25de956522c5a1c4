/**
 * How this Worker's MCP clients are wired: the outbound guard for sse and streamable-http, the
 * tunnel relay for stdio (mcp/stdio/, a process agent-node runs from its own pack), the shared
 * connection of each admin-controlled server (mcp-hub/ `McpServerHub`, through bindings.ts) and
 * the key that opens sealed user values (MCP_SECRETS_KEY).
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import { mcpServerHub } from '../bindings.ts'
import type { Env } from '../env.ts'
import type { Logger } from '../logging/index.ts'
import { workerGuardedFetch } from '../net/outbound.ts'
import { McpClients, type SharedServer } from './clients.ts'
import { secretBox } from './secrets.ts'
import { createStdioRelayTransport } from './stdio/index.ts'
import type { TransportDeps } from './types.ts'

/** The transport dependencies for `env`: guarded fetch, and the stdio relay through the tunnel gateway. */
export function transportDeps(env: Env, log: Pick<Logger, 'error'>): TransportDeps {
  return {
    fetch: workerGuardedFetch(env.OUTBOUND_ALLOWED_NETWORKS, log),
    stdio: (serverName) => createStdioRelayTransport(serverName, { env }),
  }
}

/** The MCP clients of one Durable Object (a conversation, the approvals object) for `servers`. */
export function mcpClientsFor(env: Env, servers: AgentPackConfig['mcp']['servers'], log: Logger): McpClients {
  return new McpClients({
    servers,
    shared: (name) => mcpServerHub(env, name) as unknown as SharedServer,
    deps: transportDeps(env, log),
    secrets: secretBox(env.MCP_SECRETS_KEY),
    log,
  })
}
