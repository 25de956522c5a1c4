/**
 * Benchmark: one chat turn, wallet -> agent-node -> tunnel -> conversation Durable Object (in
 * workerd) -> LLM (scripted, answers at once) -> agent-node -> wallet, against the raw Credo
 * basic-message echo between the same two agents (agent-node answers directly, no tunnel).
 * Both measured in one run, sequentially (one message in flight), after a warm-up.
 */
import { DidCommBasicMessageEventTypes, DidCommBasicMessageRole, type DidCommBasicMessageStateChangedEvent } from '@credo-ts/didcomm'
import { startScriptedLlm } from '../test/support/scripted-llm.ts'
import { measureReplies as measure, startBenchStack } from './stack.ts'
import { ms, summarize, type LatencySummary } from './stats.ts'

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200)
const WARMUP = 20

export async function chatRoundTrip(): Promise<{ full: LatencySummary; raw: LatencySummary; ratioP50: number; ratioP99: number }> {
  const llm = await startScriptedLlm({ reply: (messages) => `echo: ${messages.at(-1)?.content}` })
  const stack = await startBenchStack({ COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'bench', AGENT_MEMORY_WINDOW: '8' })
  const { node, wallet, connectionId } = stack
  try {
    // Full path through the tunnel and the Durable Object.
    await measure(wallet, connectionId, 'warm-up', WARMUP)
    const full = await measure(wallet, connectionId, 'full', MESSAGES)

    // Raw Credo echo: the tunnel is closed, agent-node itself answers each basic message.
    await node.tunnel?.stop()
    const basicMessages = node.agent.modules.didcomm.basicMessages
    node.agent.events.on<DidCommBasicMessageStateChangedEvent>(
      DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged,
      ({ payload }) => {
        if (payload.basicMessageRecord.role !== DidCommBasicMessageRole.Receiver) return
        void basicMessages.sendMessage(payload.basicMessageRecord.connectionId, `echo: ${payload.message.content}`)
      },
    )
    await measure(wallet, connectionId, 'warm-up raw', WARMUP)
    const raw = await measure(wallet, connectionId, 'raw', MESSAGES)

    const fullSummary = summarize(full)
    const rawSummary = summarize(raw)
    return { full: fullSummary, raw: rawSummary, ratioP50: fullSummary.p50 / rawSummary.p50, ratioP99: fullSummary.p99 / rawSummary.p99 }
  } finally {
    await stack.stop()
    await llm.close()
  }
}

/** Prints the figures of `chatRoundTrip`. */
export async function runChatRoundTrip(): Promise<void> {
  console.log(`chat round trip: ${MESSAGES} messages each, one in flight, after ${WARMUP} warm-up`)
  const { full, raw, ratioP50, ratioP99 } = await chatRoundTrip()
  console.table({
    'wallet -> agent -> tunnel -> DO -> LLM -> wallet': { p50: ms(full.p50), p99: ms(full.p99), mean: ms(full.mean), n: full.n },
    'raw Credo basic-message echo': { p50: ms(raw.p50), p99: ms(raw.p99), mean: ms(raw.mean), n: raw.n },
  })
  console.log(`ratio full/raw: p50 ${ratioP50.toFixed(2)}x, p99 ${ratioP99.toFixed(2)}x`)
}
