/**
 * The stdio MCP servers of agent-node's own agent pack (`servers.ts`), each kept running by a
 * `StdioServer`, and the one door the tunnel's `mcp-stdio` command goes through: the edge names a
 * server; a name the pack does not configure is refused with an error and a log line. Nothing the
 * edge sends can start a process: the list of servers is fixed when agent-node starts.
 */
import type { JsonRpcMessage, McpStdioMessageFrame, McpStdioWritten } from '@parley/shared/tunnel'
import type { Logger } from '../logging/index.ts'
import { RateLimitedLogger } from '../logging/rate-limited.ts'
import type { StdioServerConfig } from './servers.ts'
import { StdioServer, type RestartPolicy, type ServerMessageListener } from './StdioServer.ts'

/** The edge named a server agent-node's pack does not configure as `transport: stdio`. */
export class UnknownMcpServerError extends Error {
  constructor(readonly server: string) {
    super(`server: no stdio MCP server named '${server}' in agent-node's agent pack`)
    this.name = 'UnknownMcpServerError'
  }
}

export class McpStdioSupervisor {
  private readonly servers = new Map<string, StdioServer>()
  private readonly listeners = new Set<ServerMessageListener>()
  private readonly rateLimited: RateLimitedLogger

  constructor(
    configs: readonly StdioServerConfig[],
    private readonly logger: Logger,
    restart?: RestartPolicy,
  ) {
    this.rateLimited = new RateLimitedLogger(logger)
    for (const config of configs) {
      const emit = (frame: McpStdioMessageFrame) => {
        for (const listener of this.listeners) listener(frame)
      }
      this.servers.set(config.name, new StdioServer(config, emit, logger.child({ mcpServer: config.name }), restart))
    }
  }

  /** Names of the configured stdio servers. */
  get names(): string[] {
    return [...this.servers.keys()]
  }

  /** Processes spawned in all (first starts and restarts). */
  get spawned(): number {
    let total = 0
    for (const server of this.servers.values()) total += server.spawned
    return total
  }

  /** The server named `name`, if the pack configures it. */
  server(name: string): StdioServer | undefined {
    return this.servers.get(name)
  }

  /** Starts every server (in the background; each restarts by itself). */
  start(): void {
    for (const server of this.servers.values()) server.start()
    if (this.servers.size > 0) this.logger.info({ servers: this.names }, 'starting stdio MCP servers')
  }

  /** Stops every server and waits for their processes to end. */
  async stop(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.stop()))
  }

  /** Calls `listener` with every message a server writes (responses with `replyTo`, and the servers' own messages). */
  onMessage(listener: ServerMessageListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * The `mcp-stdio` command: writes `message` to server `name`'s stdin; `replyTo` is the command
   * frame's id, carried by the response.
   * @throws UnknownMcpServerError when the pack configures no stdio server `name` (logged);
   *   an Error when the server is not running at this moment (restarting).
   */
  async relay(name: string, message: JsonRpcMessage, replyTo: string): Promise<McpStdioWritten> {
    const server = this.servers.get(name)
    if (!server) {
      this.rateLimited.log(
        'warn',
        'mcp-stdio-unknown-server',
        { server: name, configured: this.names },
        "refused mcp-stdio command: the server is not configured in agent-node's agent pack",
      )
      throw new UnknownMcpServerError(name)
    }
    await server.write(message, replyTo)
    return { written: true }
  }
}
