/**
 * `npm run bench -- conversation-memory`: one chat turn (wallet → agent-node → tunnel →
 * conversation Durable Object → LLM, scripted, answering at once → wallet) with memory backend
 * `kvstore`, while the conversation's record grows. The record is grown by the test entry's
 * `record` hook (handled text exchanges older than every event of the connection, as a long
 * conversation holds them), up to each size of `BENCH_RECORD_SIZES` (default 0,1000,10000,30000
 * exchanges), and at each size `BENCH_TURNS` (default 100) turns run one at a time after 10 of
 * warm-up (50 more before the first size, so the first size is not the one measured cold). Printed per size: p50 / p99 of the turn and the ratio to the turn at the first size,
 * so a turn whose cost grows with the conversation's length shows it in one run.
 */
import { startScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'
import { connectPlainWallets, type PlainAgent } from './plain-credo.ts'
import { startBenchNodes } from './stack.ts'
import { ms, summarize } from './stats.ts'

const SIZES = (process.env.BENCH_RECORD_SIZES ?? '0,1000,10000,30000').split(',').map(Number)
const TURNS = Number(process.env.BENCH_TURNS ?? 100)
const WARMUP = 10
const FIRST_WARMUP = 50

export async function runConversationMemory(): Promise<void> {
  console.log(
    `conversation-memory: ${TURNS} turns one at a time (after ${WARMUP} of warm-up) with memory backend kvstore, the record at ${SIZES.join(', ')} exchanges`,
  )
  const llm = await startScriptedLlm({ reply: (messages) => `echo: ${messages.at(-1)?.content}` })
  const { node, worker, tunnelSecret, stop } = await startBenchNodes({
    entry: 'edge-worker/test/entry/index.ts',
    workerVars: { COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'bench', AGENT_MEMORY_BACKEND: 'kvstore', AGENT_MEMORY_WINDOW: '8' },
  })
  const wallets: PlainAgent[] = []
  try {
    const admin = `http://127.0.0.1:${node.adminPort}`
    const invitationUrl = async () => ((await (await fetch(`${admin}/v1/invitation`)).json()) as { url: string }).url
    const [wallet] = await connectPlainWallets(1, wallets, invitationUrl, { greeted: true })
    const [{ id: connectionId }] = (await (await fetch(`${admin}/v1/connections`)).json()) as [{ id: string }]
    for (let i = 0; i < FIRST_WARMUP; i++) await wallet!.roundTrip(`warm-up ${i}`)
    let seeded = 0
    let first: number | undefined
    for (const size of SIZES) {
      const response = await fetch(`${worker.url}/test-hooks/conversations/${connectionId}/record`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tunnelSecret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ exchanges: size - seeded }),
      })
      if (!response.ok) throw new Error(`growing the record to ${size} exchanges: ${response.status} ${await response.text()}`)
      const { events } = (await response.json()) as { events: number }
      seeded = size
      const samples: number[] = []
      for (let i = 0; i < WARMUP + TURNS; i++) {
        const start = performance.now()
        await wallet!.roundTrip(`turn ${size} ${i}`)
        if (i >= WARMUP) samples.push(performance.now() - start)
      }
      const { p50, p99 } = summarize(samples)
      first ??= p50
      console.log(
        `record of ${String(size).padStart(6)} exchanges (${events} events): p50 ${ms(p50)}, p99 ${ms(p99)}; p50 ${(p50 / first).toFixed(2)}x the first size's`,
      )
    }
  } finally {
    for (const agent of wallets) await agent.shutdown().catch(() => undefined)
    await stop()
    await llm.close()
  }
}
