/**
 * Benchmark: agent-node's memory with many wallet WebSockets open at once (issue 16). agent-node
 * runs as a child process (real SQLite; the killable-agent test stack), so its RSS is its own;
 * this process opens `BENCH_OPEN_SOCKETS` WebSockets (default 1,000) to its public port, 50 at a
 * time, holds them all open, then closes them. One real Credo wallet is connected first, so the
 * agent has done its DIDComm warm-up before the baseline.
 *
 * agent-node runs as the production bundle (built first, `agent-node/scripts/build.ts`), or with
 * BENCH_AGENT_NODE=tsx its TypeScript sources through tsx, as `npm start` runs them.
 *
 * Printed: agent-node's RSS and heap used (prom-client's `process_resident_memory_bytes`,
 * `nodejs_heap_size_used_bytes` from the admin `/metrics`) before, with every socket open (and
 * the increase per socket), and after they all closed.
 */
import WebSocket from 'ws'
import { buildAgentNode } from '../agent-node/scripts/build.ts'
import type { AgentNodeForm } from '../scripts/local-stack.ts'
import { startKillableAgent } from '../test/support/killable-agent.ts'
import { readGauges } from './agent-metrics.ts'
import { inBatches } from './stats.ts'

const SOCKETS = Number(process.env.BENCH_OPEN_SOCKETS ?? 1_000)
const FORM: AgentNodeForm = process.env.BENCH_AGENT_NODE === 'tsx' ? 'tsx' : 'bundle'
const MiB = 1024 * 1024
const SETTLE_MS = 2_000

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS))

/** agent-node's RSS and heap used, in bytes, from its `/metrics`. */
async function memory(adminUrl: string): Promise<{ rss: number; heap: number }> {
  const gauges = await readGauges(adminUrl, ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes'])
  return { rss: gauges.process_resident_memory_bytes, heap: gauges.nodejs_heap_size_used_bytes }
}

const show = ({ rss, heap }: { rss: number; heap: number }) => `RSS ${(rss / MiB).toFixed(0)} MiB, heap used ${(heap / MiB).toFixed(0)} MiB`

/** Runs the bench (see the module comment) and prints its one line of figures. */
export async function runOpenSockets(): Promise<void> {
  if (FORM === 'bundle') await buildAgentNode()
  const stack = await startKillableAgent('bench-sockets', {}, FORM)
  const sockets: WebSocket[] = []
  try {
    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    await stack.wallet.connect(url)
    await settle()
    const before = await memory(stack.agent.adminUrl)
    const publicWs = stack.agent.publicUrl.replace(/^http/, 'ws')
    await inBatches(SOCKETS, 50, async () => {
      const ws = new WebSocket(publicWs)
      sockets.push(ws)
      await new Promise((resolve, reject) => {
        ws.once('open', resolve)
        ws.once('error', reject)
      })
    })
    await settle()
    const open = await memory(stack.agent.adminUrl)
    const stillOpen = sockets.filter((ws) => ws.readyState === WebSocket.OPEN).length
    await Promise.all(
      sockets.map((ws) => {
        const closed = new Promise((resolve) => ws.once('close', resolve))
        ws.close()
        return closed
      }),
    )
    await settle()
    const after = await memory(stack.agent.adminUrl)
    console.log(
      `agent-node (${FORM}) with ${SOCKETS} wallet WebSockets open (${stillOpen} still open at the reading): before ${show(before)}; open ${show(open)} (+${((open.rss - before.rss) / SOCKETS / 1024).toFixed(1)} KiB RSS per socket); after closing them ${show(after)}`,
    )
  } finally {
    for (const ws of sockets) ws.terminate()
    await stack.stop()
  }
}
