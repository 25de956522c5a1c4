/**
 * The MCP side of one conversation: the tools of every configured server for this user, and the
 * test of a user's configuration.
 *
 * - `admin-controlled` servers are reached through their shared connection (mcp-hub/, one Durable
 *   Object per server).
 * - `user-controlled` servers the user has configured (flows/mcp-config/) get a connection of
 *   this conversation with the user's headers, kept while the configuration is unchanged.
 *   Servers the user has not configured contribute no tools.
 *
 * A server whose tools cannot be listed (within `LIST_TIMEOUT_MS`) contributes none to this turn
 * (logged); the servers are listed at once, not one after another. A server that
 * goes down after listing keeps its tools, and each call answers the model with an error saying
 * the server is unavailable, so the turn goes on.
 */
import pTimeout from 'p-timeout'
import type { Logger } from '../logging/index.ts'
import type { Tool } from '../tools/types.ts'
import { McpConnection } from './connection.ts'
import type { SecretBox } from './secrets.ts'
import { type McpInvoke, mcpTools } from './tools.ts'
import type { ListedTool, McpServerConfig, TransportDeps } from './types.ts'
import { openValues, type StoredValue, userHeaders } from './user-config.ts'

/** Longest wait for a server's tool list in a turn, ms: a server that hangs does not hold the turn. */
export const LIST_TIMEOUT_MS = 5_000

/** Longest wait for the test of a user's configuration (initialize and tool list), ms. */
export const PROBE_TIMEOUT_MS = 10_000

/** `promise`, or a rejection saying nothing came within `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return pTimeout(promise, { milliseconds: ms, message: `no answer within ${ms} ms` })
}

/** The RPC surface of an admin-controlled server's shared connection (mcp-hub/ `McpServerHub`). */
export interface SharedServer {
  tools(serverName: string): Promise<ListedTool[]>
  call(serverName: string, tool: string, args: Record<string, unknown>): Promise<string>
}

export interface McpClientsOptions {
  servers: readonly McpServerConfig[]
  /** The shared connection of an admin-controlled server. */
  shared(serverName: string): SharedServer
  deps: TransportDeps
  /** Opens sealed secret values; undefined when MCP_SECRETS_KEY is unset. */
  secrets?: SecretBox
  log: Logger
}

/** The MCP servers as one conversation uses them. */
export class McpClients {
  /** This conversation's connections to user-controlled servers, with the stored values they were made from. */
  private readonly own = new Map<string, { key: string; connection: McpConnection }>()

  constructor(private readonly options: McpClientsOptions) {}

  /** Opens sealed values (for the configuration flow). */
  get secrets(): SecretBox | undefined {
    return this.options.secrets
  }

  /** The configured servers. */
  get servers(): readonly McpServerConfig[] {
    return this.options.servers
  }

  /**
   * Registry entries for every server's tools: admin-controlled ones, and user-controlled ones
   * configured in `saved` (server name → stored values). Names in `taken` are avoided and added to.
   */
  async toolsFor(saved: Readonly<Record<string, Record<string, StoredValue>>>, taken: Set<string>): Promise<Tool[]> {
    // Listed at once, named in server order (the naming rule depends on it).
    const listings = await Promise.all(this.options.servers.map((server) => this.listing(server, saved[server.name])))
    return listings.flatMap((listing) => (listing ? mcpTools(listing.server, listing.tools, listing.invoke, taken) : []))
  }

  /**
   * The tools of `server` and how to call them, or undefined when it contributes none this turn:
   * a user-controlled server the user has not configured, or a server that could not list its
   * tools within `LIST_TIMEOUT_MS` (logged).
   */
  private async listing(
    server: McpServerConfig,
    stored: Record<string, StoredValue> | undefined,
  ): Promise<{ server: McpServerConfig; tools: ListedTool[]; invoke: McpInvoke } | undefined> {
    try {
      if (server.accessMode === 'admin-controlled') {
        const shared = this.options.shared(server.name)
        const tools = await withTimeout(shared.tools(server.name), LIST_TIMEOUT_MS)
        return { server, tools, invoke: (tool, args) => shared.call(server.name, tool, args) }
      }
      if (!stored) return undefined
      const connection = await this.userConnection(server, stored)
      const tools = await withTimeout(connection.tools(), LIST_TIMEOUT_MS)
      return { server, tools, invoke: (tool, args, signal) => connection.call(tool, args, signal) }
    } catch (error) {
      this.options.log.warn('MCP server tools left out of this turn', {
        server: server.name,
        error: error instanceof Error ? error.message : String(error),
      })
      return undefined
    }
  }

  /**
   * Tests a configuration: connects to `server` with `headers` (initialize), lists its tools,
   * closes, within `PROBE_TIMEOUT_MS`. @throws McpUnavailableError (or the server's error, or a
   * timeout) when it does not work.
   */
  async probe(server: McpServerConfig, headers: Readonly<Record<string, string>>): Promise<ListedTool[]> {
    const connection = new McpConnection({ ...server, reconnect: false }, headers, this.options.deps)
    try {
      return await withTimeout(connection.tools(), PROBE_TIMEOUT_MS)
    } finally {
      await connection.close()
    }
  }

  /** The connection of this conversation to user-controlled `server` for `stored`, opened anew when the values changed. */
  private async userConnection(server: McpServerConfig, stored: Record<string, StoredValue>): Promise<McpConnection> {
    const key = JSON.stringify(stored)
    const current = this.own.get(server.name)
    if (current?.key === key) return current.connection
    await current?.connection.close()
    const headers = userHeaders(server, await openValues(stored, this.options.secrets))
    const connection = new McpConnection(server, headers, this.options.deps)
    this.own.set(server.name, { key, connection })
    return connection
  }
}
