/**
 * One client connection to one MCP server (manifest spec "mcp"), with the official SDK's `Client`
 * and the JSON Schema validator that works without `eval` in workerd (`CfWorkerJsonSchemaValidator`).
 *
 * - Connects on first use (initialize), lists tools (`tools/list`, every page), calls tools.
 * - A failure to reach the server (network, closed transport, timeout) drops the connection; the
 *   next use connects anew. With `reconnect: true` a failed call is retried once at once on a
 *   fresh connection, unless it timed out: the server had the request and may still run it, and
 *   a tool (an approved one above all) runs at most once. A tool that ran and failed (`isError`,
 *   or a protocol error such as an unknown tool) is not retried.
 * - Results become text for the model: text parts as they are, other parts described, at most
 *   `MAX_RESULT_CHARS`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker'
import { MAX_RESULT_CHARS } from '../tools/http.ts'
import { createTransport } from './transport.ts'
import { McpUnavailableError, type ListedTool, type McpServerConfig, type TransportDeps } from './types.ts'

/** How Parley introduces itself in `initialize`. */
const CLIENT_INFO = { name: 'parley-edge', version: '0.1.0' }

/** Pages of `tools/list` read at most (a misbehaving server's endless cursor stops here). */
const MAX_TOOL_PAGES = 20

/** Content parts of a `tools/call` result, as far as they become text. */
type ContentPart = { type: string; text?: string; mimeType?: string; uri?: string; resource?: { uri?: string; text?: string } }

/** The text the model gets for a tool result's `content` (and `structuredContent` when there is no content). */
export function resultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const parts = Array.isArray(result.content) ? (result.content as ContentPart[]) : []
  const text = parts
    .map((part) => {
      if (part.type === 'text') return part.text ?? ''
      if (part.type === 'resource') return part.resource?.text ?? `[resource ${part.resource?.uri ?? ''}]`
      if (part.type === 'resource_link') return `[resource ${part.uri ?? ''}]`
      return `[${part.type}${part.mimeType ? ` ${part.mimeType}` : ''}]`
    })
    .join('\n')
  const whole = text || (result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent))
  return whole.slice(0, MAX_RESULT_CHARS)
}

/** Whether `error` says the server could not be reached (rather than that it answered with an error). */
function isUnavailability(error: unknown): boolean {
  if (error instanceof McpUnavailableError) return true
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed || error.code === ErrorCode.RequestTimeout
  return true
}

/** A lazily opened connection to `server` with fixed request headers. */
export class McpConnection {
  private client?: Promise<Client>
  private listed?: ListedTool[]

  /**
   * @param headers sent on every request (the server's `headers`, plus a user's configured ones);
   *   never logged.
   */
  constructor(
    readonly server: McpServerConfig,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly deps: TransportDeps,
  ) {}

  /**
   * The server's tools: listed once per connection, so a server that goes down after listing
   * keeps its tools visible and each call reports it unavailable.
   * @throws McpUnavailableError when the server cannot be reached and its tools were never listed.
   */
  async tools(): Promise<ListedTool[]> {
    if (this.listed) return this.listed
    this.listed = await this.use('list', async (client) => {
      const tools: ListedTool[] = []
      let cursor: string | undefined
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const result = await client.listTools(cursor === undefined ? undefined : { cursor })
        for (const tool of result.tools)
          tools.push({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown> })
        cursor = result.nextCursor
        if (!cursor) break
      }
      return tools
    })
    return this.listed
  }

  /**
   * Calls tool `name` (the server's own name) with `args`.
   * @returns the result as text for the model.
   * @throws McpUnavailableError when the server cannot be reached; Error with the tool's own
   *   message when the tool failed.
   */
  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const result = await this.use('call', (client) => client.callTool({ name, arguments: args }, undefined, { signal }))
    const text = resultText(result as { content?: unknown; structuredContent?: unknown })
    if (result.isError) throw new Error(text || `tool '${name}' of MCP server '${this.server.name}' failed`)
    return text
  }

  /** Closes the connection (it opens again on next use). */
  async close(): Promise<void> {
    const client = this.client
    this.client = undefined
    await client?.then((open) => open.close()).catch(() => undefined)
  }

  /**
   * Runs `operation` (a tool `list`ing, or a tool `call`) on the open client; see the module
   * comment for failures and `reconnect`.
   */
  private async use<T>(kind: 'list' | 'call', operation: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await operation(await this.open())
      } catch (error) {
        if (!isUnavailability(error)) throw error
        await this.close()
        const mayHaveRun = kind === 'call' && error instanceof McpError && error.code === ErrorCode.RequestTimeout
        if (this.server.reconnect && attempt === 0 && !mayHaveRun) continue
        throw error instanceof McpUnavailableError ? error : new McpUnavailableError(this.server.name, reason(error))
      }
    }
  }

  private open(): Promise<Client> {
    if (!this.client) {
      const opening = (async () => {
        const client = new Client(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() })
        await client.connect(createTransport(this.server, this.headers, this.deps))
        return client
      })()
      this.client = opening
      opening.catch(() => {
        if (this.client === opening) this.client = undefined
      })
    }
    return this.client
  }
}

/** A short reason for a failure to reach a server (the error's message; never request headers). */
function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
