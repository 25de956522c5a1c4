/**
 * One stdio MCP server run by agent-node: the process (spawned by the SDK's
 * `StdioClientTransport`, which frames JSON-RPC as newline-delimited JSON and gives the process
 * only the SDK's small default environment plus the pack's `env`, never agent-node's own secrets),
 * restarted with exponential backoff and full jitter whenever it exits, its stderr logged line by
 * line (rate-limited), and the relay of JSON-RPC messages between the edge and the process.
 *
 * Several edge clients may talk to one process, so agent-node numbers the requests it writes to
 * stdin itself and restores each client's id on the response (with the id of the `mcp-stdio`
 * command frame it answers, `replyTo`). What the server sends on its own (notifications, requests
 * to the client) goes up without `replyTo`. Requests still open when the process exits are
 * answered with a JSON-RPC error at once, so no edge client waits for a dead process.
 */
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { JsonRpcMessage, isJsonRpcRequest, type McpStdioMessageFrame } from '@parley/shared/tunnel'
import { backOff } from 'exponential-backoff'
import type { Logger } from '../logging/index.ts'
import { RateLimitedLogger } from '../logging/rate-limited.ts'
import type { StdioServerConfig } from './servers.ts'

/** JSON-RPC error code of a request whose server exited before answering (implementation-defined server error range). */
export const SERVER_EXITED_CODE = -32000

/** Restart delays: the first restart waits up to `minDelayMs`, doubling per exit up to `maxDelayMs`; milliseconds. */
export interface RestartPolicy {
  minDelayMs: number
  maxDelayMs: number
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { minDelayMs: 250, maxDelayMs: 30_000 }

/** Receives each message the server writes, as the frame that carries it up the tunnel. */
export type ServerMessageListener = (frame: McpStdioMessageFrame) => void

export class StdioServer {
  private transport?: StdioClientTransport
  private stopped = false
  /** Requests written and not answered: the id on stdin -> the edge's id and command frame. */
  private readonly pending = new Map<number, { id: string | number; replyTo: string }>()
  private nextId = 1
  private readonly rateLimited: RateLimitedLogger
  private readonly started = new Set<() => void>()
  /** Processes spawned since `start` (the first one and every restart). */
  spawned = 0

  constructor(
    readonly config: StdioServerConfig,
    private readonly onMessage: ServerMessageListener,
    private readonly logger: Logger,
    private readonly restart: RestartPolicy = DEFAULT_RESTART_POLICY,
  ) {
    this.rateLimited = new RateLimitedLogger(logger)
  }

  /** The running process's id; undefined while it starts or waits to restart. */
  get pid(): number | undefined {
    return this.transport?.pid ?? undefined
  }

  /** Spawns the process and keeps it running until `stop`; returns at once. */
  start(): void {
    this.stopped = false
    void backOff(() => this.runOnce(), {
      numOfAttempts: Number.MAX_SAFE_INTEGER,
      startingDelay: this.restart.minDelayMs,
      maxDelay: this.restart.maxDelayMs,
      timeMultiple: 2,
      jitter: 'full',
      delayFirstAttempt: false,
      retry: (error: Error, attempt: number) => {
        if (!this.stopped)
          this.logger.warn({ server: this.config.name, attempt, reason: error.message }, 'stdio MCP server stopped; restarting')
        return !this.stopped
      },
    }).catch(() => undefined)
  }

  /** Resolves once a process is running (at once if one is). */
  whenRunning(): Promise<void> {
    if (this.transport) return Promise.resolve()
    return new Promise((resolve) => this.started.add(resolve))
  }

  /** Stops the process (stdin closed, then SIGTERM, then SIGKILL, by the SDK) and restarts no more. */
  async stop(): Promise<void> {
    this.stopped = true
    const transport = this.transport
    this.transport = undefined
    await transport?.close()
  }

  /**
   * Writes `message` from the edge to the process's stdin. A request gets agent-node's own id on
   * the way; its response goes to the listener with `replyTo` and the request's id restored.
   * @throws when no process is running (starting, or waiting to restart).
   */
  async write(message: JsonRpcMessage, replyTo: string): Promise<void> {
    const transport = this.transport
    if (!transport) throw new Error(`MCP server '${this.config.name}' is not running (starting or restarting); try again`)
    let out: JsonRpcMessage = message
    if (isJsonRpcRequest(message)) {
      const id = this.nextId++
      this.pending.set(id, { id: message.id, replyTo })
      out = { ...message, id }
    }
    await transport.send(out as JSONRPCMessage)
  }

  /** One life of the process: resolves when it was stopped, rejects (so it is restarted) when it exits or cannot start. */
  private async runOnce(): Promise<void> {
    if (this.stopped) return
    const { name, command, args, env } = this.config
    const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' })
    const exited = new Promise<void>((resolve) => {
      transport.onclose = resolve
    })
    transport.onmessage = (message) => this.fromServer(message)
    transport.onerror = (error) =>
      this.rateLimited.log('warn', `mcp-stdio-error:${name}`, { server: name, err: error }, 'stdio MCP server error')
    const stderr = transport.stderr
    if (stderr) {
      createInterface({ input: stderr as Readable }).on('line', (line) =>
        this.rateLimited.log('info', `mcp-stdio-stderr:${name}`, { server: name, line: line.slice(0, 1_000) }, 'stdio MCP server stderr'),
      )
    }
    await transport.start()
    this.spawned++
    if (this.stopped) {
      await transport.close()
      return
    }
    this.transport = transport
    this.logger.info({ server: name, pid: transport.pid }, 'stdio MCP server started')
    for (const resolve of this.started) resolve()
    this.started.clear()
    await exited
    if (this.transport === transport) this.transport = undefined
    this.answerPending()
    if (this.stopped) return
    throw new Error('the process exited')
  }

  /** A message from the process: a response to the edge's request, or the server's own message. */
  private fromServer(raw: JSONRPCMessage): void {
    const parsed = JsonRpcMessage.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      this.rateLimited.log(
        'warn',
        `mcp-stdio-invalid:${this.config.name}`,
        { server: this.config.name, error: `${issue?.path.join('.') || '(root)'}: ${issue?.message}` },
        'stdio MCP server wrote a message that is not JSON-RPC 2.0; dropped',
      )
      return
    }
    const message = parsed.data
    const server = this.config.name
    if ('method' in message) {
      this.onMessage({ kind: 'mcp-stdio-message', server, message })
      return
    }
    const request = typeof message.id === 'number' ? this.pending.get(message.id) : undefined
    if (!request) {
      this.rateLimited.log(
        'warn',
        `mcp-stdio-unmatched:${server}`,
        { server },
        'stdio MCP server answered a request it was not sent; dropped',
      )
      return
    }
    this.pending.delete(message.id as number)
    this.onMessage({ kind: 'mcp-stdio-message', server, replyTo: request.replyTo, message: { ...message, id: request.id } })
  }

  /** Answers every open request with an error: the process that would have answered is gone. */
  private answerPending(): void {
    const server = this.config.name
    for (const { id, replyTo } of this.pending.values()) {
      this.onMessage({
        kind: 'mcp-stdio-message',
        server,
        replyTo,
        message: { jsonrpc: '2.0', id, error: { code: SERVER_EXITED_CODE, message: `MCP server '${server}' exited before answering` } },
      })
    }
    this.pending.clear()
  }
}
