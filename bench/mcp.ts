/**
 * Benchmark: an MCP tool call's round trip, same run, against calling the tool function directly.
 *
 * 1. Client level (Node): the edge's MCP client (`edge-worker/src/mcp/connection.ts`, official
 *    SDK, through the outbound guard) calling `echo` on the repository's MCP test server over
 *    streamable-http and over sse, against calling the tool's function in-process. One call in
 *    flight; the three kinds alternate.
 * 2. Whole turn (workerd): wallet -> agent-node -> tunnel -> conversation Durable Object -> model
 *    -> MCP tool -> model -> wallet, with the tool on an admin-controlled server (its shared
 *    connection object) over streamable-http and over sse, against a plain turn. The three kinds
 *    alternate.
 * `BENCH_CALLS` (default 500) and `BENCH_MESSAGES` (default 60) change the counts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { McpServerConfig } from '../edge-worker/src/mcp/types.ts'
import { McpConnection } from '../edge-worker/src/mcp/connection.ts'
import { guardedFetch } from '../edge-worker/src/net/outbound.ts'
import { echoText, startMcpTestServer } from '../test/support/mcp/server.ts'
import { startScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'
import { measureReplies, startBenchStack } from './stack.ts'
import { ms, summarize } from './stats.ts'

const CALLS = Number(process.env.BENCH_CALLS ?? 500)
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 60)
const WARMUP = 10

const row = (samples: number[]) => {
  const s = summarize(samples)
  return { p50: ms(s.p50), p99: ms(s.p99), mean: ms(s.mean), n: s.n }
}

/** Milliseconds `run` takes. */
async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now()
  await run()
  return performance.now() - start
}

async function clientLevel(streamableUrl: string, sseUrl: string): Promise<void> {
  const deps = { fetch: guardedFetch('127.0.0.1/32') }
  const config = (name: string, transport: 'streamable-http' | 'sse', url: string) =>
    ({ name, transport, url, accessMode: 'admin-controlled' }) as McpServerConfig
  const http = new McpConnection(config('http', 'streamable-http', streamableUrl), {}, deps)
  const sse = new McpConnection(config('sse', 'sse', sseUrl), {}, deps)
  const direct = async (text: string) => echoText(text)
  for (let i = 0; i < WARMUP; i++) await Promise.all([http.call('echo', { text: 'w' }), sse.call('echo', { text: 'w' })])
  const samples = { direct: [] as number[], http: [] as number[], sse: [] as number[] }
  for (let i = 0; i < CALLS; i++) {
    samples.direct.push(await timed(() => direct(`m${i}`)))
    samples.http.push(await timed(() => http.call('echo', { text: `m${i}` })))
    samples.sse.push(await timed(() => sse.call('echo', { text: `m${i}` })))
  }
  await http.close()
  await sse.close()
  console.log(`client level: ${CALLS} calls each, alternating, one in flight, after ${WARMUP} warm-up`)
  console.table({
    'tool function called directly': row(samples.direct),
    'MCP client, streamable-http': row(samples.http),
    'MCP client, sse': row(samples.sse),
  })
}

async function turnLevel(streamableUrl: string, sseUrl: string): Promise<void> {
  const llm = await startScriptedLlm({
    reply: (messages) => {
      const last = messages.at(-1)!
      if (last.role === 'tool') return `echo: ${last.content}`
      const text = String(last.content)
      if (text.startsWith('http')) return { toolCalls: [{ name: 'echo', arguments: { text } }] }
      if (text.startsWith('sse')) return { toolCalls: [{ name: 'sse_echo', arguments: { text } }] }
      return `echo: ${text}`
    },
  })
  const packDir = mkdtempSync(join(tmpdir(), 'parley-bench-mcp-'))
  writeFileSync(
    join(packDir, 'agent-pack.json'),
    JSON.stringify({
      mcp: {
        servers: [
          { name: 'http', transport: 'streamable-http', url: streamableUrl },
          { name: 'sse', transport: 'sse', url: sseUrl },
        ],
      },
    }),
  )
  const stack = await startBenchStack(
    { COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'bench', OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32' },
    packDir,
  )
  try {
    const { wallet, connectionId } = stack
    for (const kind of ['plain', 'http', 'sse']) await measureReplies(wallet, connectionId, `${kind} warm-up`, WARMUP)
    const samples = { plain: [] as number[], http: [] as number[], sse: [] as number[] }
    for (let i = 0; i < MESSAGES; i++) {
      for (const kind of ['plain', 'http', 'sse'] as const)
        samples[kind].push(...(await measureReplies(wallet, connectionId, `${kind} ${i}`, 1)))
    }
    console.log(`whole turn: ${MESSAGES} messages each, alternating, one in flight, after ${WARMUP} warm-up each`)
    console.table({
      'plain turn (1 model call)': row(samples.plain),
      'turn with an MCP tool, streamable-http': row(samples.http),
      'turn with an MCP tool, sse': row(samples.sse),
    })
  } finally {
    await stack.stop()
    await llm.close()
    rmSync(packDir, { recursive: true, force: true })
  }
}

export async function runMcp(): Promise<void> {
  const server = await startMcpTestServer()
  try {
    await clientLevel(server.streamableUrl, server.sseUrl)
    await turnLevel(server.streamableUrl, server.sseUrl)
  } finally {
    await server.close()
  }
}
