/**
 * The MCP clients (src/mcp/) against the repository's MCP test server (real SDK servers on
 * loopback, both transports), plus the pure parts: tool naming, user headers, sealed secrets.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { resolveAgentPack } from '@parley/shared/agent-pack'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startMcpTestServer, type McpTestServer } from '../../../test/support/mcp/server.ts'
import { LIST_TIMEOUT_MS, McpClients, type SharedServer } from '../../src/mcp/clients.ts'
import { McpConnection, resultText } from '../../src/mcp/connection.ts'
import { secretBox } from '../../src/mcp/secrets.ts'
import { mcpToolName, mcpTools } from '../../src/mcp/tools.ts'
import { decideCall, visibleTo } from '../../src/tools/policy.ts'
import type { ListedTool, McpServerConfig, TransportDeps } from '../../src/mcp/types.ts'
import { userHeaders } from '../../src/mcp/user-config.ts'
import { createLogger } from '../../src/logging/index.ts'
import { guardedFetch } from '../../src/net/outbound.ts'

const servers = (json: unknown): McpServerConfig[] =>
  resolveAgentPack(undefined, { MCP_SERVERS_CONFIG: JSON.stringify(json) }).config.mcp.servers
const deps: TransportDeps = { fetch: guardedFetch('127.0.0.1/32') }
const signal = new AbortController().signal

describe('MCP connections over streamable-http and sse', () => {
  let server: McpTestServer
  beforeAll(async () => {
    server = await startMcpTestServer({ requiredHeaders: { 'x-api-key': 'k-1' } })
  })
  afterAll(() => server?.close())

  for (const transport of ['streamable-http', 'sse'] as const) {
    it(`${transport}: lists tools with their schemas, calls them with the headers on every request`, async () => {
      const url = transport === 'sse' ? server.sseUrl : server.streamableUrl
      const [config] = servers([{ name: 'tools', transport, url, headers: { 'x-api-key': 'k-1' } }])
      const connection = new McpConnection(config!, config!.headers!, deps)
      const before = server.requests.length
      const tools = await connection.tools()
      expect(tools.map((tool) => tool.name)).toEqual(['echo', 'add', 'fail'])
      expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })
      expect(await connection.call('echo', { text: 'hi' })).toBe('echo: hi')
      // `add` declares an output schema: the cfworker validator checks it without eval.
      expect(await connection.call('add', { a: 2, b: 3 })).toBe('5')
      await expect(connection.call('fail', {})).rejects.toThrow('the fail tool failed, as it always does')
      await connection.close()
      const seen = server.requests.slice(before)
      expect(seen.length).toBeGreaterThan(3)
      expect(seen.every((request) => request.headers['x-api-key'] === 'k-1')).toBe(true)
    })
  }

  it('without the required header the server is unavailable, with a message naming it', async () => {
    const [config] = servers([{ name: 'locked', transport: 'streamable-http', url: server.streamableUrl }])
    await expect(new McpConnection(config!, {}, deps).tools()).rejects.toThrow(/^MCP server 'locked' is unavailable: /)
  })

  it('refuses a loopback URL the outbound guard does not allow', async () => {
    const [config] = servers([{ name: 'guarded', transport: 'streamable-http', url: server.streamableUrl }])
    const connection = new McpConnection(config!, {}, { fetch: guardedFetch(undefined) })
    await expect(connection.tools()).rejects.toThrow(/MCP server 'guarded' is unavailable: .*127\.0\.0\.1/)
  })

  it('a stdio server without a relay says so', async () => {
    const [config] = servers([{ name: 'local', transport: 'stdio', command: 'mcp-local' }])
    await expect(new McpConnection(config!, {}, deps).tools()).rejects.toThrow(
      "MCP server 'local' is unavailable: no stdio relay is available in this Worker",
    )
  })
})

describe('a server that goes down, and reconnect', () => {
  it('keeps its listed tools, reports each call unavailable, and with reconnect works again once it is back', async () => {
    const first = await startMcpTestServer()
    const port = new URL(first.origin).port
    const [config] = servers([{ name: 'flaky', transport: 'streamable-http', url: first.streamableUrl, reconnect: true }])
    const connection = new McpConnection(config!, {}, deps)
    expect((await connection.tools()).length).toBe(3)
    await first.close()
    await expect(connection.call('echo', { text: 'x' })).rejects.toThrow(/^MCP server 'flaky' is unavailable: /)
    expect((await connection.tools()).length).toBe(3)
    // Back on the same port: the next call connects anew.
    const again = await startMcpTestServer({ echoPrefix: 'again: ', port: Number(port) })
    try {
      expect(await connection.call('echo', { text: 'x' })).toBe('again: x')
    } finally {
      await connection.close()
      await again.close()
    }
  })
})

describe('reconnect: which failed calls are retried', () => {
  it('retries a call whose connection closed once on a fresh connection, never one that timed out (it may have run)', async () => {
    const server = await startMcpTestServer()
    const [config] = servers([{ name: 'slow', transport: 'streamable-http', url: server.streamableUrl, reconnect: true }])
    const connection = new McpConnection(config!, {}, deps)
    const callTool = vi.spyOn(Client.prototype, 'callTool')
    try {
      callTool.mockRejectedValueOnce(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'))
      expect(await connection.call('echo', { text: 'a' })).toBe('echo: a')
      expect(callTool).toHaveBeenCalledTimes(2)

      callTool.mockClear()
      callTool.mockRejectedValueOnce(new McpError(ErrorCode.RequestTimeout, 'Request timed out'))
      await expect(connection.call('echo', { text: 'b' })).rejects.toThrow(/^MCP server 'slow' is unavailable: /)
      expect(callTool).toHaveBeenCalledTimes(1)
      // The next call connects anew.
      expect(await connection.call('echo', { text: 'c' })).toBe('echo: c')
    } finally {
      callTool.mockRestore()
      await connection.close()
      await server.close()
    }
  })
})

describe('MCP tools in the registry', () => {
  it('keep the server’s names unless taken or refused; then <server>_<tool>, then a number', () => {
    const taken = new Set(['lookup', 'srv_lookup'])
    expect(mcpToolName('srv', 'echo', taken)).toBe('echo')
    expect(mcpToolName('srv', 'lookup', taken)).toBe('srv_lookup_2')
    expect(mcpToolName('my server', 'get.item', taken)).toBe('my_server_get_item')
    expect(mcpToolName('s', 'x'.repeat(80), new Set()).length).toBe(64)
  })

  it('carry the schema, the server’s toolAccess as policy.access (matched by the server’s own name), and call through the server', async () => {
    const [config] = servers([
      { name: 'srv', transport: 'sse', url: 'https://mcp.example.com/sse', toolAccess: { default: 'none', roles: { staff: ['echo'] } } },
    ])
    const calls: unknown[] = []
    const tools = mcpTools(
      config!,
      [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
      async (tool, args) => {
        calls.push([tool, args])
        return 'ok'
      },
      new Set(['echo']),
    )
    expect(tools[0]).toMatchObject({
      name: 'srv_echo',
      description: 'Echoes',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      policy: { requiresAuth: false, access: { default: 'none', roles: { staff: ['echo'] } } },
      mcp: { server: 'srv', tool: 'echo' },
    })
    // toolAccess lists `echo`, the server's name for the tool, not the registry's `srv_echo`.
    const staff = { identity: 'sam', roles: ['staff'], admin: false }
    expect(visibleTo(tools, staff).map((tool) => tool.name)).toEqual(['srv_echo'])
    expect(decideCall(tools, 'srv_echo', staff)).toMatchObject({ allowed: true })
    expect(visibleTo(tools, { identity: 'ann', roles: ['sales'], admin: false })).toEqual([])
    const context = { principal: { roles: [], admin: false }, integrations: {}, fetch: deps.fetch, signal }
    expect(await tools[0]!.execute({ text: 'a' }, context)).toBe('ok')
    expect(calls).toEqual([['echo', { text: 'a' }]])
  })

  it('a shared server that cannot list its tools contributes none; the others still do', async () => {
    const config = servers([
      { name: 'down', transport: 'streamable-http', url: 'https://down.example.com/mcp' },
      { name: 'up', transport: 'streamable-http', url: 'https://up.example.com/mcp' },
    ])
    const shared = (name: string): SharedServer => ({
      tools: async () => {
        if (name === 'down') throw new Error("MCP server 'down' is unavailable: fetch failed")
        return [{ name: 'ping', inputSchema: { type: 'object' } }]
      },
      call: async () => 'pong',
    })
    const clients = new McpClients({ servers: config, shared, deps, log: createLogger('test', 'error') })
    const tools = await clients.toolsFor({}, new Set())
    expect(tools.map((tool) => tool.name)).toEqual(['ping'])
  })

  it(`a shared server that never answers its tool list is left out after ${LIST_TIMEOUT_MS} ms; servers are named in pack order`, async () => {
    vi.useFakeTimers()
    try {
      const config = servers([
        { name: 'hangs', transport: 'streamable-http', url: 'https://hangs.example.com/mcp' },
        { name: 'a', transport: 'streamable-http', url: 'https://a.example.com/mcp' },
        { name: 'b', transport: 'streamable-http', url: 'https://b.example.com/mcp' },
      ])
      const shared = (name: string): SharedServer => ({
        tools: (): Promise<ListedTool[]> =>
          name === 'hangs' ? new Promise(() => undefined) : Promise.resolve([{ name: 'ping', inputSchema: { type: 'object' } }]),
        call: async () => 'pong',
      })
      const clients = new McpClients({ servers: config, shared, deps, log: createLogger('test', 'error') })
      const listing = clients.toolsFor({}, new Set())
      await vi.advanceTimersByTimeAsync(LIST_TIMEOUT_MS)
      expect((await listing).map((tool) => tool.name)).toEqual(['ping', 'b_ping'])
    } finally {
      vi.useRealTimers()
    }
  })

  it('renders results as text: text parts, other parts described, structured content when there is no content', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', mimeType: 'image/png', data: '' },
        ],
      }),
    ).toBe('a\n[image image/png]')
    expect(resultText({ content: [], structuredContent: { sum: 5 } })).toBe('{"sum":5}')
  })
})

describe('user configuration', () => {
  it('maps values into headers through headerTemplate and headerName (default Authorization), over the server headers', () => {
    const [config] = servers([
      {
        name: 'vault',
        transport: 'streamable-http',
        url: 'https://vault.example.com/mcp',
        accessMode: 'user-controlled',
        headers: { 'x-client': 'parley' },
        userConfig: {
          fields: [
            { name: 'token', type: 'secret', headerTemplate: 'Bearer {value}' },
            { name: 'tenant', type: 'text', headerName: 'x-tenant' },
          ],
        },
      },
    ])
    expect(userHeaders(config!, { token: 't-1', tenant: 'acme' })).toEqual({
      'x-client': 'parley',
      Authorization: 'Bearer t-1',
      'x-tenant': 'acme',
    })
  })

  it('seals secrets with AES-GCM under MCP_SECRETS_KEY: never the plain text, a fresh IV each time, tamper-evident', async () => {
    const box = secretBox('a key for the tests')!
    const sealed = await box.seal('s3cret-value')
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+$/)
    expect(sealed).not.toContain('s3cret')
    expect(await box.seal('s3cret-value')).not.toBe(sealed)
    expect(await box.open(sealed)).toBe('s3cret-value')
    await expect(secretBox('another key')!.open(sealed)).rejects.toThrow()
    expect(secretBox(undefined)).toBeUndefined()
    expect(secretBox('')).toBeUndefined()
  })
})
