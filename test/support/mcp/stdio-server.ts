/**
 * A stdio MCP server for the tests and benches (run with `node --import tsx`), built on the SDK's
 * `McpServer`. Tools:
 * - `echo { text }`: answers `text`.
 * - `add { a, b }`: answers the sum.
 * - `pid`: answers this process's id (tests that kill and restart it).
 * - `env { name }`: answers whether the variable `name` is set in this process (`set` / `unset`).
 * - `notify { text }`: sends a logging notification carrying `text`, then answers `notified`.
 * - `sleep { ms }`: answers `slept` after `ms` milliseconds.
 * It writes `stdio test server ready` on stderr once connected.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const server = new McpServer({ name: 'parley-stdio-test', version: '1.0.0' }, { capabilities: { logging: {} } })
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

server.registerTool('echo', { description: 'Echoes the text', inputSchema: { text: z.string() } }, ({ text: value }) => text(value))
server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) =>
  text(String(a + b)),
)
server.registerTool('pid', { description: 'The process id' }, () => text(String(process.pid)))
server.registerTool('env', { description: 'Whether a variable is set', inputSchema: { name: z.string() } }, ({ name }) =>
  text(process.env[name] === undefined ? 'unset' : 'set'),
)
server.registerTool('notify', { description: 'Sends a log notification', inputSchema: { text: z.string() } }, async ({ text: value }) => {
  await server.server.sendLoggingMessage({ level: 'info', data: value })
  return text('notified')
})
server.registerTool('sleep', { description: 'Waits', inputSchema: { ms: z.number().int().min(0) } }, async ({ ms }) => {
  await new Promise((resolve) => setTimeout(resolve, ms))
  return text('slept')
})

await server.connect(new StdioServerTransport())
process.stderr.write('stdio test server ready\n')
