/**
 * Shapes shared by the MCP clients (manifest spec "mcp"): a configured server, a tool as a server
 * lists it, and the slot for the stdio relay transport.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { GuardedFetch } from '../net/outbound.ts'

/** One `mcp.servers` entry (or one of MCP_SERVERS_CONFIG), as the agent-pack loader validated it. */
export type McpServerConfig = AgentPackConfig['mcp']['servers'][number]

/** A tool as its server lists it (`tools/list`). */
export interface ListedTool {
  name: string
  description?: string
  /** JSON Schema (object) of the arguments. */
  inputSchema: Record<string, unknown>
}

/**
 * Makes the transport of a `stdio` server: the tunnel relay to the process agent-node runs
 * (`createStdioRelayTransport(serverName, deps)` of mcp/stdio/, bound to its dependencies). The
 * Worker names a configured server, never a command.
 */
export type StdioTransportMaker = (serverName: string) => Transport

/** What the transports need from the Worker. */
export interface TransportDeps {
  /** `fetch` through the outbound guard: every request of sse and streamable-http goes through it. */
  fetch: GuardedFetch
  /** The stdio relay; without it a `stdio` server cannot be reached (a clear error per call). */
  stdio?: StdioTransportMaker
}

/** Thrown when a server cannot be reached (as opposed to a tool that ran and failed). */
export class McpUnavailableError extends Error {
  constructor(
    readonly server: string,
    reason: string,
  ) {
    super(`MCP server '${server}' is unavailable: ${reason}`)
    this.name = 'McpUnavailableError'
  }
}
