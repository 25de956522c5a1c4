/**
 * The shared connection of one `admin-controlled` MCP server (manifest spec "mcp": "one shared
 * connection … all users share it"): one Durable Object per server name
 * (`MCP_SERVER_HUB.idFromName(name)`, bindings.ts `mcpServerHub`), holding one SDK client with
 * the server's global `headers`. Conversations list and call the server's tools through its RPC.
 *
 * Why an object and not a per-isolate cache: a Worker's I/O objects (an SSE stream, a pending
 * response) belong to the request or object that opened them, so a connection opened by one
 * conversation object cannot be used by another; and isolates come and go. One object per server
 * is one connection per server, whichever conversation calls. It keeps nothing in storage: after
 * an eviction the next call connects again.
 */
import { DurableObject } from 'cloudflare:workers'
import { workerConfig } from '../config/index.ts'
import type { Env } from '../env.ts'
import { createLogger, type Logger } from '../logging/index.ts'
import { McpConnection } from '../mcp/connection.ts'
import { transportDeps } from '../mcp/deps.ts'
import { McpUnavailableError, type ListedTool } from '../mcp/types.ts'

/** Durable Object of one admin-controlled MCP server. RPC: `tools`, `call`. No storage. */
export class McpServerHub extends DurableObject<Env> {
  private connection?: McpConnection
  private readonly log: Logger

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.log = createLogger('mcp-hub', env.LOG_LEVEL)
  }

  /**
   * RPC: the tools of server `serverName` (listed once per connection).
   * @throws Error naming the server when it is not configured, not admin-controlled, or unreachable.
   */
  async tools(serverName: string): Promise<ListedTool[]> {
    return this.connectionTo(serverName).tools()
  }

  /**
   * RPC: calls tool `tool` (the server's own name) of `serverName` with `args`.
   * @returns the result as text. @throws Error with the tool's message, or saying the server is unavailable.
   */
  async call(serverName: string, tool: string, args: Record<string, unknown>): Promise<string> {
    try {
      return await this.connectionTo(serverName).call(tool, args)
    } catch (error) {
      if (error instanceof McpUnavailableError) this.log.warn('MCP server unavailable', { server: serverName, error: error.message })
      throw error
    }
  }

  private connectionTo(serverName: string): McpConnection {
    if (this.connection?.server.name === serverName) return this.connection
    const server = workerConfig(this.env).mcp.servers.find((candidate) => candidate.name === serverName)
    if (server?.accessMode !== 'admin-controlled') throw new Error(`no admin-controlled MCP server named '${serverName}'`)
    this.connection = new McpConnection(server, server.headers ?? {}, transportDeps(this.env, this.log))
    return this.connection
  }
}
