/**
 * Stdio MCP servers end to end: agent-node runs them from its own agent pack (the repo's test
 * server, and `@modelcontextprotocol/server-everything` from the registry), and an SDK `Client`
 * in the real worker (workerd via `wrangler dev`, the test entry's `/test-hooks/mcp-stdio/:server`)
 * reaches them through the edge's stdio relay transport, the tunnel gateway and the real tunnel.
 * The worker names servers only: a name agent-node's pack lacks is refused by agent-node.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'

const TEST_SERVER = join(ROOT, 'test/support/mcp/stdio-server.ts')
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')

interface RelayAnswer {
  tools?: string[]
  results?: { content: { type: string; text: string }[] }[]
  durationsMs?: number[]
  notifications?: unknown[]
  error?: string
}

describe('stdio MCP servers through agent-node and the tunnel', () => {
  let stack: LocalStack
  let packDir: string
  let dataDir: string

  /** Asks the worker's test hook to connect to `server` and make `calls`. */
  async function relay(server: string, calls: { name: string; arguments?: Record<string, unknown> }[]): Promise<RelayAnswer> {
    const response = await fetch(`${stack.worker.url}/test-hooks/mcp-stdio/${encodeURIComponent(server)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.tunnelSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ calls }),
    })
    return (await response.json()) as RelayAnswer
  }

  /** Waits until the worker reaches `server` (agent-node dials the tunnel and starts its servers in the background). */
  async function untilServing(server: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const answer = await relay(server, [])
      if (answer.tools) return
      if (Date.now() > deadline) throw new Error(`'${server}' not reachable in ${timeoutMs} ms: ${answer.error}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }

  beforeAll(async () => {
    packDir = mkdtempSync(join(tmpdir(), 'parley-mcp-stdio-pack-'))
    dataDir = mkdtempSync(join(tmpdir(), 'parley-mcp-stdio-data-'))
    writeFileSync(
      join(packDir, 'agent-pack.json'),
      JSON.stringify({
        mcp: {
          servers: [
            { name: 'tools', transport: 'stdio', command: process.execPath, args: ['--import', 'tsx', TEST_SERVER] },
            { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
          ],
        },
      }),
    )
    stack = await startLocalStack({
      workerEntry: 'edge-worker/test/entry/index.ts',
      agentEnv: { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), AGENT_PACK_PATH: packDir },
    })
    // The tunnel opens and the servers start in the background.
    await untilServing('tools')
    await untilServing('everything')
  })

  afterAll(async () => {
    await stack?.stop()
    rmSync(packDir, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("lists and calls the repo's stdio server's tools from the worker, and gets its notifications", async () => {
    const answer = await relay('tools', [
      { name: 'echo', arguments: { text: 'from the edge' } },
      { name: 'add', arguments: { a: 2, b: 40 } },
      { name: 'notify', arguments: { text: 'pushed up the tunnel' } },
    ])
    expect(answer.error).toBeUndefined()
    expect(answer.tools).toEqual(expect.arrayContaining(['echo', 'add', 'pid', 'env', 'notify', 'sleep']))
    expect(answer.results?.map((result) => result.content[0]?.text)).toEqual(['from the edge', '42', 'notified'])
    expect(answer.notifications).toEqual(['pushed up the tunnel'])
  })

  it('runs @modelcontextprotocol/server-everything over stdio: lists its tools and calls echo', async () => {
    const answer = await relay('everything', [{ name: 'echo', arguments: { message: 'hello everything' } }])
    expect(answer.error).toBeUndefined()
    expect(answer.tools).toEqual(expect.arrayContaining(['echo']))
    expect(answer.results?.[0]?.content[0]?.text).toBe('Echo: hello everything')
  })

  it("refuses a server agent-node's pack does not configure", async () => {
    const answer = await relay('rm -rf /', [])
    expect(answer.error).toContain(
      "agent-node refused the mcp-stdio message: server: no stdio MCP server named 'rm -rf /' in agent-node's agent pack",
    )
  })
})
