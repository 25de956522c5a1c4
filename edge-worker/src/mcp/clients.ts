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
 * A server whose tools cannot be listed contributes none to this turn (logged); a server that
 * goes down after listing keeps its tools, and each call answers the model with an error saying
 * the server is unavailable, so the turn goes on.
 */
import type { Logger } from '../logging/index.ts'
import type { Tool } from '../tools/types.ts'
import { McpConnection } from './connection.ts'
import type { SecretBox } from './secrets.ts'
import { mcpTools } from './tools.ts'
import type { ListedTool, McpServerConfig, TransportDeps } from './types.ts'
import { openValues, type StoredValue, userHeaders } from './user-config.ts'

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
    const tools: Tool[] = []
    for (const server of this.options.servers) {
      try {
        if (server.accessMode === 'admin-controlled') {
          const shared = this.options.shared(server.name)
          const listed = await shared.tools(server.name)
          tools.push(...mcpTools(server, listed, (tool, args) => shared.call(server.name, tool, args), taken))
          continue
        }
        const stored = saved[server.name]
        if (!stored) continue
        const connection = await this.userConnection(server, stored)
        const listed = await connection.tools()
        tools.push(...mcpTools(server, listed, (tool, args, signal) => connection.call(tool, args, signal), taken))
      } catch (error) {
        this.options.log.warn('MCP server tools left out of this turn', {
          server: server.name,
          error: error instanceof Error ? error.message : String(error),
        })
      }
    }
    return tools
  }

  /**
   * Tests a configuration: connects to `server` with `headers` (initialize), lists its tools,
   * closes. @throws McpUnavailableError (or the server's error) when it does not work.
   */
  async probe(server: McpServerConfig, headers: Readonly<Record<string, string>>): Promise<ListedTool[]> {
    const connection = new McpConnection({ ...server, reconnect: false }, headers, this.options.deps)
    try {
      return await connection.tools()
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
