/**
 * agent-node's stdio MCP servers: the list read from its own agent pack, the processes (the repo's
 * test server, test/support/mcp/stdio-server.ts, run for real), restarts, the relay an SDK
 * `Client` drives, and the refusal of anything but a configured server's name: unknown names are
 * refused with a log line, and a frame that tries to name a command, arguments or an environment
 * never reaches a handler; nothing is spawned either way.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { LoggingMessageNotificationSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { DownstreamFrame, parseFrame } from '@parley/shared/tunnel'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer, type WebSocket } from 'ws'
import { loadConfig } from '../../src/config/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import {
  loadStdioServers,
  McpStdioSupervisor,
  SERVER_EXITED_CODE,
  UnknownMcpServerError,
  type StdioServerConfig,
} from '../../src/mcp/index.ts'
import type { MessageService } from '../../src/messaging/MessageService.ts'
import { runCommand } from '../../src/tunnel/commands/index.ts'
import { TunnelClient } from '../../src/tunnel/TunnelClient.ts'
import { captureLogs } from '../support/log-lines.ts'
import { supervisorTransport } from '../support/mcp-supervisor-transport.ts'

const TEST_SERVER = resolve(import.meta.dirname, '../../../test/support/mcp/stdio-server.ts')
const testServer = (name: string, env: Record<string, string> = {}): StdioServerConfig => ({
  name,
  command: process.execPath,
  args: ['--import', 'tsx', TEST_SERVER],
  env,
})
const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content[0]?.text

describe('stdio MCP servers of agent-node', () => {
  const cleanup: (() => Promise<void> | void)[] = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step()
  })

  async function supervise(configs: StdioServerConfig[], logger = createLogger('silent')) {
    const supervisor = new McpStdioSupervisor(configs, logger, { minDelayMs: 10, maxDelayMs: 50 })
    supervisor.start()
    cleanup.push(() => supervisor.stop())
    await Promise.all(configs.map((config) => supervisor.server(config.name)?.whenRunning()))
    return supervisor
  }

  async function connect(supervisor: McpStdioSupervisor, server: string) {
    const client = new Client({ name: 'parley-test', version: '1.0.0' })
    await client.connect(supervisorTransport(supervisor, server))
    cleanup.push(() => client.close())
    return client
  }

  it("reads the stdio servers from agent-node's own pack, with placeholders and the MCP_SERVERS_CONFIG override", () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-mcp-pack-'))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(
      join(dir, 'agent-pack.yaml'),
      `mcp:
  servers:
    - { name: files, transport: stdio, command: npx, args: "-y some-server /data", env: { TOKEN: "\${FILES_TOKEN}" } }
    - { name: remote, transport: streamable-http, url: "https://mcp.example.com/mcp" }
`,
    )
    expect(loadStdioServers({ AGENT_PACK_PATH: dir, FILES_TOKEN: 't0k' })).toEqual({
      servers: [{ name: 'files', command: 'npx', args: ['-y', 'some-server', '/data'], env: { TOKEN: 't0k' } }],
      warnings: [],
    })
    const override = JSON.stringify([{ name: 'other', transport: 'stdio', command: 'node', args: ['server.js'] }])
    expect(loadStdioServers({ AGENT_PACK_PATH: dir, MCP_SERVERS_CONFIG: override }).servers).toEqual([
      { name: 'other', command: 'node', args: ['server.js'], env: {} },
    ])
    expect(loadStdioServers({}).servers).toEqual([])
  })

  it('loadConfig takes the stdio servers from AGENT_PACK_PATH and turns problems of the mcp section into notices', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-mcp-config-'))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(
      join(dir, 'agent-pack.yaml'),
      `mcp:
  servers:
    - { name: ok, transport: stdio, command: node, args: [server.js] }
    - { name: broken, transport: stdio }
    - { name: ok, transport: stdio, command: other }
`,
    )
    const { config, notices } = loadConfig({ DATA_DIR: dir, AGENT_WALLET_KEY: 'k'.repeat(32), AGENT_PACK_PATH: dir })
    expect(config.mcpStdioServers).toEqual([{ name: 'ok', command: 'node', args: ['server.js'], env: {} }])
    expect(notices.filter((notice) => notice.startsWith('agent pack: '))).toEqual([
      'agent pack: mcp.servers.1.command: expected a command (required for transport stdio), got nothing; mcp.servers.1 dropped',
      'agent pack: mcp.servers.2.name: duplicate of servers.0, got "ok"; mcp.servers.2 dropped',
    ])
  })

  it("starts each server and relays an SDK client: tools, a call, and the server's own notifications", async () => {
    const supervisor = await supervise([testServer('tools')])
    const client = await connect(supervisor, 'tools')
    const notes: unknown[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      notes.push(notification.params.data)
    })
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'add', 'pid', 'env', 'notify', 'sleep']))
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'héllo' } }))).toBe('héllo')
    expect(text(await client.callTool({ name: 'notify', arguments: { text: 'a note' } }))).toBe('notified')
    expect(notes).toEqual(['a note'])
    expect(supervisor.spawned).toBe(1)
  })

  it("gives the process the pack's env and the SDK's small default set, never agent-node's own variables", async () => {
    process.env.PARLEY_TEST_AGENT_SECRET = 'agent-only'
    cleanup.push(() => {
      delete process.env.PARLEY_TEST_AGENT_SECRET
    })
    const supervisor = await supervise([testServer('tools', { GIVEN_BY_PACK: 'yes' })])
    const client = await connect(supervisor, 'tools')
    expect(text(await client.callTool({ name: 'env', arguments: { name: 'GIVEN_BY_PACK' } }))).toBe('set')
    expect(text(await client.callTool({ name: 'env', arguments: { name: 'PARLEY_TEST_AGENT_SECRET' } }))).toBe('unset')
  })

  it('restarts a server that exits, and answers its open requests with an error at once', async () => {
    const supervisor = await supervise([testServer('tools')])
    const client = await connect(supervisor, 'tools')
    const firstPid = Number(text(await client.callTool({ name: 'pid', arguments: {} })))
    expect(firstPid).toBe(supervisor.server('tools')?.pid)
    const open = client.callTool({ name: 'sleep', arguments: { ms: 60_000 } })
    await new Promise((resolve) => setTimeout(resolve, 200))
    process.kill(firstPid, 'SIGKILL')
    const failure = await open.catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(McpError)
    expect((failure as McpError).code).toBe(SERVER_EXITED_CODE)
    expect((failure as McpError).message).toContain("MCP server 'tools' exited before answering")

    await expect.poll(() => supervisor.spawned, { timeout: 10_000 }).toBe(2)
    await supervisor.server('tools')?.whenRunning()
    const again = await connect(supervisor, 'tools')
    const secondPid = Number(text(await again.callTool({ name: 'pid', arguments: {} })))
    expect(secondPid).not.toBe(firstPid)
    expect(secondPid).toBe(supervisor.server('tools')?.pid)
  })

  it('refuses a server name its pack does not configure, with a log line, and spawns nothing', async () => {
    const { logger, lines } = captureLogs('info')
    const supervisor = await supervise([testServer('tools')], logger)
    const context = { messages: {} as MessageService, idempotencyKey: 'k', commandId: crypto.randomUUID(), mcp: supervisor }
    const message = { jsonrpc: '2.0' as const, id: 1, method: 'tools/list' }
    const refused = runCommand({ name: 'mcp-stdio', server: 'node -e "process.exit()"', message }, context)
    await expect(refused).rejects.toThrow(UnknownMcpServerError)
    await expect(refused).rejects.toThrow("server: no stdio MCP server named 'node -e \"process.exit()\"' in agent-node's agent pack")
    expect(lines.filter((line) => line.msg.startsWith('refused mcp-stdio command'))).toMatchObject([
      { server: 'node -e "process.exit()"', configured: ['tools'] },
    ])
    // Without stdio servers at all, every name is refused.
    await expect(runCommand({ name: 'mcp-stdio', server: 'tools', message }, { ...context, mcp: undefined })).rejects.toThrow(
      UnknownMcpServerError,
    )
    expect(supervisor.spawned).toBe(1)
  })

  it('a command frame that names a command, arguments or an environment does not parse, so nothing runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-mcp-smuggle-'))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    const marker = join(dir, 'ran')
    const supervisor = await supervise([testServer('tools')])
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    const frame = (command: Record<string, unknown>) =>
      JSON.stringify({ kind: 'command', id: crypto.randomUUID(), idempotencyKey: 'k', command })
    const attempts = [
      { name: 'mcp-stdio', server: 'tools', message, command: 'touch', args: [marker] },
      { name: 'mcp-stdio', server: 'tools', message, env: { NODE_OPTIONS: `--require ${marker}` } },
      { name: 'mcp-stdio', server: { name: 'tools', command: 'touch', args: [marker] }, message },
      { name: 'mcp-stdio', server: 'tools', message: { ...message, command: 'touch' } },
      { name: 'mcp-stdio-spawn', command: 'touch', args: [marker] },
      { name: 'mcp-stdio', server: 'tools\nx', message },
    ]
    for (const attempt of attempts) {
      const parsed = parseFrame(DownstreamFrame, frame(attempt))
      expect(parsed, JSON.stringify(attempt)).toHaveProperty('error')
    }
    expect(parseFrame(DownstreamFrame, frame({ name: 'mcp-stdio', server: 'tools', message }))).toHaveProperty('frame')
    expect(existsSync(marker)).toBe(false)
    expect(supervisor.spawned).toBe(1)
  })

  it('through the tunnel: only a configured name reaches a process; smuggled commands are dropped and nothing is spawned', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-mcp-tunnel-'))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    const marker = join(dir, 'ran')
    const { logger, lines } = captureLogs('info')
    const supervisor = await supervise([testServer('tools')], logger)
    // A stand-in for the worker's side of the tunnel: a WebSocket server on loopback that sends raw frames.
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
    cleanup.push(() => new Promise<void>((done) => wss.close(() => done())))
    await new Promise((resolve) => wss.once('listening', resolve))
    const received: Record<string, unknown>[] = []
    const socket = new Promise<WebSocket>((resolve) =>
      wss.once('connection', (ws) => {
        ws.on('message', (data) => received.push(JSON.parse(data.toString()) as Record<string, unknown>))
        resolve(ws)
      }),
    )
    const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/tunnel`
    const client = new TunnelClient({ url, secret: 'a-tunnel-secret-of-enough-length' }, {} as MessageService, logger, { mcp: supervisor })
    client.start()
    cleanup.push(() => client.stop())
    const ws = await socket
    const send = (command: Record<string, unknown>) => {
      const id = crypto.randomUUID()
      ws.send(JSON.stringify({ kind: 'command', id, idempotencyKey: id, command }))
      return id
    }
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list' }
    send({ name: 'mcp-stdio', server: 'tools', message: list, command: 'touch', args: [marker] })
    send({ name: 'mcp-stdio', server: { command: 'touch', args: [marker] }, message: list })
    const unknown = send({ name: 'mcp-stdio', server: 'touch', message: list })
    const init = send({
      name: 'mcp-stdio',
      server: 'tools',
      message: {
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
    })
    await expect
      .poll(() => received.find((frame) => frame.replyTo === init), { timeout: 10_000 })
      .toMatchObject({
        kind: 'mcp-stdio-message',
        server: 'tools',
        message: { jsonrpc: '2.0', id: 'init', result: { serverInfo: { name: 'parley-stdio-test' } } },
      })
    expect(received.find((frame) => frame.id === unknown)).toMatchObject({
      kind: 'command-result',
      ok: false,
      error: "server: no stdio MCP server named 'touch' in agent-node's agent pack",
    })
    expect(received.find((frame) => frame.id === init)).toMatchObject({ kind: 'command-result', ok: true, result: { written: true } })
    // The two smuggling frames got no answer at all: they never reached a handler.
    expect(received.filter((frame) => frame.kind === 'command-result')).toHaveLength(2)
    expect(lines.filter((line) => line.msg === 'rejected frame from tunnel')).toHaveLength(2)
    expect(existsSync(marker)).toBe(false)
    expect(supervisor.spawned).toBe(1)
  })
})
