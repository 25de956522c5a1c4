/**
 * `npm run bench -- mcp-stdio`: the round trip of one MCP tool call (`echo`) to the repo's stdio
 * test server (test/support/mcp/stdio-server.ts), three ways in the same run:
 * - direct: an SDK `Client` in this Node process over the SDK's `StdioClientTransport`;
 * - agent-node relay: a `Client` in this process over agent-node's `McpStdioSupervisor` (no tunnel);
 * - through the tunnel: a `Client` in the worker (workerd via `wrangler dev`, test entry) over the
 *   edge's stdio relay transport → tunnel gateway → tunnel → agent-node → the process, timed in
 *   the worker (workerd's clock advances on I/O only, in whole milliseconds), and in this process
 *   as the time of hook requests with calls minus requests without (a mean per call).
 * Calls run one at a time, in rounds that alternate the three ways (so all see the same load),
 * after a warm-up round. `BENCH_CALLS` (default 200) is the count per way.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createLogger } from '../agent-node/src/logging/index.ts'
import { McpStdioSupervisor } from '../agent-node/src/mcp/index.ts'
import { supervisorTransport } from '../agent-node/test/support/mcp-supervisor-transport.ts'
import { ROOT } from '../scripts/local-stack.ts'
import { startBenchNodes } from './stack.ts'
import { ms, summarize } from './stats.ts'

const CALLS = Number(process.env.BENCH_CALLS ?? 200)
const PER_ROUND = 20
const SERVER = { command: process.execPath, args: ['--import', 'tsx', join(ROOT, 'test/support/mcp/stdio-server.ts')] }

/** `count` echo calls on `client`, one at a time; each sample in milliseconds. */
async function timeCalls(client: Client, count: number): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } })
    samples.push(performance.now() - start)
  }
  return samples
}

export async function runMcpStdio(): Promise<void> {
  console.log(`mcp-stdio: ${CALLS} echo calls each way, one in flight, alternating rounds of ${PER_ROUND}, after a warm-up round`)
  const logger = createLogger('error', 'bench')
  const packDir = mkdtempSync(join(tmpdir(), 'parley-bench-mcp-pack-'))
  writeFileSync(join(packDir, 'agent-pack.json'), JSON.stringify({ mcp: { servers: [{ name: 'tools', transport: 'stdio', ...SERVER }] } }))
  const { worker, tunnelSecret, stop } = await startBenchNodes({
    entry: 'edge-worker/test/entry/index.ts',
    agentNodeEnv: { AGENT_PACK_PATH: packDir },
  })
  const supervisor = new McpStdioSupervisor([{ name: 'tools', ...SERVER, env: {} }], logger)
  supervisor.start()
  const direct = new Client({ name: 'bench-direct', version: '1.0.0' })
  const relayed = new Client({ name: 'bench-relay', version: '1.0.0' })
  try {
    await direct.connect(new StdioClientTransport(SERVER))
    await supervisor.server('tools')?.whenRunning()
    await relayed.connect(supervisorTransport(supervisor, 'tools'))
    /** `count` calls from the worker (one hook request): the worker's own timings, and the request's time in this process (ms). */
    const throughTunnel = async (count: number): Promise<{ durationsMs: number[]; requestMs: number }> => {
      const calls = Array.from({ length: count }, (_, i) => ({ name: 'echo', arguments: { text: `call ${i}` } }))
      for (let attempt = 0; ; attempt++) {
        const start = performance.now()
        const response = await fetch(`${worker.url}/test-hooks/mcp-stdio/tools`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tunnelSecret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ calls }),
        })
        const answer = (await response.json()) as { durationsMs?: number[]; error?: string }
        if (answer.durationsMs) return { durationsMs: answer.durationsMs, requestMs: performance.now() - start }
        // agent-node dials the tunnel and starts its server in the background.
        if (attempt > 240) throw new Error(`the worker does not reach the stdio server: ${answer.error}`)
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
    }
    await timeCalls(direct, PER_ROUND)
    await timeCalls(relayed, PER_ROUND)
    await throughTunnel(PER_ROUND)
    const samples = { direct: [] as number[], relay: [] as number[], tunnel: [] as number[] }
    // Node-timed: hook requests with calls minus requests without (connect and tools/list only).
    let withCallsMs = 0
    let withoutCallsMs = 0
    for (let done = 0; done < CALLS; done += PER_ROUND) {
      const count = Math.min(PER_ROUND, CALLS - done)
      samples.direct.push(...(await timeCalls(direct, count)))
      samples.relay.push(...(await timeCalls(relayed, count)))
      const timed = await throughTunnel(count)
      samples.tunnel.push(...timed.durationsMs)
      withCallsMs += timed.requestMs
      withoutCallsMs += (await throughTunnel(0)).requestMs
    }
    const rows = { direct: summarize(samples.direct), relay: summarize(samples.relay), tunnel: summarize(samples.tunnel) }
    console.log(
      `direct (Node, StdioClientTransport):      p50 ${ms(rows.direct.p50)}, p99 ${ms(rows.direct.p99)}, mean ${ms(rows.direct.mean)}`,
    )
    console.log(
      `agent-node relay (Node, no tunnel):       p50 ${ms(rows.relay.p50)}, p99 ${ms(rows.relay.p99)}, mean ${ms(rows.relay.mean)}`,
    )
    console.log(
      `worker → tunnel → agent-node (workerd):   p50 ${ms(rows.tunnel.p50)}, p99 ${ms(rows.tunnel.p99)}, mean ${ms(rows.tunnel.mean)}`,
    )
    console.log(`worker → tunnel → agent-node, timed in Node: mean ${ms((withCallsMs - withoutCallsMs) / CALLS)} per call`)
    console.log(
      `tunnel/direct: p50 ${(rows.tunnel.p50 / rows.direct.p50).toFixed(2)}x, p99 ${(rows.tunnel.p99 / rows.direct.p99).toFixed(2)}x`,
    )
  } finally {
    await direct.close()
    await relayed.close()
    await supervisor.stop()
    await stop()
    rmSync(packDir, { recursive: true, force: true })
  }
}
