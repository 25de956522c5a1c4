/**
 * MCP test servers for tests and benchmarks, built with the official SDK's server classes and
 * served on 127.0.0.1 with a random port. One server speaks both transports:
 *
 * - streamable HTTP at `/mcp` (stateless: a fresh SDK server per request),
 * - SSE at `/sse` (GET opens the stream) with messages POSTed to `/messages?sessionId=…`.
 *
 * Tools: `echo` (`{ text }` → `<prefix><text>`), `add` (`{ a, b }` → the sum) and `fail`
 * (always answers an error result). With `requiredHeaders`, every request lacking one of them
 * (value compared exactly) answers 401, so a client's headers are checked on every request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

export interface McpTestServerOptions {
  /** Server name in `initialize`. */
  name?: string
  /** Text before the echoed text; default `echo: `. */
  echoPrefix?: string
  /** Headers every request must carry (name lower-case → exact value); else 401. */
  requiredHeaders?: Record<string, string>
  /** Names of the tools, if other than `echo`, `add`, `fail` (same order). */
  toolNames?: { echo?: string; add?: string; fail?: string }
  /** Port to listen on; default 0 (any free port). A test that restarts a server passes the port it had. */
  port?: number
}

export interface McpTestServer {
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** Streamable HTTP endpoint. */
  streamableUrl: string
  /** SSE endpoint. */
  sseUrl: string
  /** Tool calls served, in order: tool name and arguments. */
  calls: { tool: string; args: Record<string, unknown> }[]
  /** Headers of every HTTP request received, in order. */
  requests: { method: string; path: string; headers: IncomingMessage['headers'] }[]
  close(): Promise<void>
}

/** What the `echo` tool answers for `text` (the benchmark calls it directly as the baseline). */
export function echoText(text: string, prefix = 'echo: '): string {
  return `${prefix}${text}`
}

function mcpServer(options: McpTestServerOptions, calls: McpTestServer['calls']): McpServer {
  const server = new McpServer({ name: options.name ?? 'parley-test', version: '1.0.0' })
  const names = { echo: 'echo', add: 'add', fail: 'fail', ...options.toolNames }
  server.registerTool(names.echo, { description: 'Echoes the text it is given.', inputSchema: { text: z.string() } }, async ({ text }) => {
    calls.push({ tool: names.echo, args: { text } })
    return { content: [{ type: 'text', text: echoText(text, options.echoPrefix) }] }
  })
  server.registerTool(
    names.add,
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
    async ({ a, b }) => {
      calls.push({ tool: names.add, args: { a, b } })
      return { content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }
    },
  )
  server.registerTool(names.fail, { description: 'Always fails.', inputSchema: {} }, async () => {
    calls.push({ tool: names.fail, args: {} })
    return { isError: true, content: [{ type: 'text', text: 'the fail tool failed, as it always does' }] }
  })
  return server
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? JSON.parse(text) : undefined
}

/** Starts the server; resolves once it listens. */
export async function startMcpTestServer(options: McpTestServerOptions = {}): Promise<McpTestServer> {
  const calls: McpTestServer['calls'] = []
  const requests: McpTestServer['requests'] = []
  const sse = new Map<string, SSEServerTransport>()

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    requests.push({ method: request.method ?? '', path: url.pathname, headers: request.headers })
    for (const [name, value] of Object.entries(options.requiredHeaders ?? {})) {
      if (request.headers[name] !== value) {
        response.writeHead(401, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ error: 'unauthorized' }))
        return
      }
    }
    if (url.pathname === '/mcp') {
      if (request.method !== 'POST') {
        response.writeHead(405, { allow: 'POST' }).end()
        return
      }
      const server = mcpServer(options, calls)
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      response.on('close', () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(request, response, await readJson(request))
      return
    }
    if (url.pathname === '/sse' && request.method === 'GET') {
      const transport = new SSEServerTransport('/messages', response)
      sse.set(transport.sessionId, transport)
      response.on('close', () => sse.delete(transport.sessionId))
      await mcpServer(options, calls).connect(transport)
      return
    }
    if (url.pathname === '/messages' && request.method === 'POST') {
      const transport = sse.get(url.searchParams.get('sessionId') ?? '')
      if (!transport) {
        response.writeHead(404).end('unknown session')
        return
      }
      await transport.handlePostMessage(request, response, await readJson(request))
      return
    }
    response.writeHead(404).end()
  }

  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500)
      response.end(String(error))
    })
  })
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  return {
    origin,
    streamableUrl: `${origin}/mcp`,
    sseUrl: `${origin}/sse`,
    calls,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections()
        http.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
