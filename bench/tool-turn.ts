/**
 * Benchmark: a chat turn with one tool call against a plain chat turn, same stack, same run.
 * Path: wallet -> agent-node -> tunnel -> conversation Durable Object (workerd) -> scripted
 * model; the tool turn adds a call of an external HTTP tool (tools.dynamicConfig, through the
 * Worker's outbound guard) and a second model call with its result. Messages one at a time,
 * the two kinds alternating.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'
import { measureReplies, startBenchStack } from './stack.ts'
import { ms, summarize } from './stats.ts'

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100)
const WARMUP = 10

export async function runToolTurn(): Promise<void> {
  console.log(`tool turn: ${MESSAGES} messages each, alternating, one in flight, after ${WARMUP} warm-up each`)
  // The tool answers its query as is.
  const tool = createServer((request, response) => response.end(new URL(request.url ?? '/', 'http://x').searchParams.get('q') ?? ''))
  await new Promise<void>((resolve) => tool.listen(0, '127.0.0.1', resolve))
  const toolUrl = `http://127.0.0.1:${(tool.address() as AddressInfo).port}`
  const llm = await startScriptedLlm({
    reply: (messages) => {
      const last = messages.at(-1)!
      if (last.role === 'tool') return `echo: ${last.content}`
      const text = String(last.content)
      return text.startsWith('tool') ? { toolCalls: [{ name: 'echo_tool', arguments: { query: text } }] } : `echo: ${text}`
    },
  })
  const packDir = mkdtempSync(join(tmpdir(), 'parley-bench-pack-'))
  writeFileSync(
    join(packDir, 'agent-pack.yaml'),
    `tools:\n  dynamicConfig:\n    - { name: echo_tool, description: Echoes its query, endpoint: "${toolUrl}/?q={query}" }\n`,
  )
  const stack = await startBenchStack(
    { COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'bench', OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32' },
    packDir,
  )
  try {
    const { wallet, connectionId } = stack
    await measureReplies(wallet, connectionId, 'plain warm-up', WARMUP)
    await measureReplies(wallet, connectionId, 'tool warm-up', WARMUP)
    // Alternating, so both kinds see the same load on a shared machine.
    const plainSamples: number[] = []
    const toolSamples: number[] = []
    for (let i = 0; i < MESSAGES; i++) {
      plainSamples.push(...(await measureReplies(wallet, connectionId, `plain ${i}`, 1)))
      toolSamples.push(...(await measureReplies(wallet, connectionId, `tool ${i}`, 1)))
    }
    const plain = summarize(plainSamples)
    const withTool = summarize(toolSamples)
    console.table({
      'plain turn (1 model call)': { p50: ms(plain.p50), p99: ms(plain.p99), mean: ms(plain.mean), n: plain.n },
      'turn with one tool call (2 model calls + HTTP tool)': {
        p50: ms(withTool.p50),
        p99: ms(withTool.p99),
        mean: ms(withTool.mean),
        n: withTool.n,
      },
    })
    console.log(`tool/plain: p50 ${(withTool.p50 / plain.p50).toFixed(2)}x, p99 ${(withTool.p99 / plain.p99).toFixed(2)}x`)
  } finally {
    await stack.stop()
    await llm.close()
    tool.close()
    rmSync(packDir, { recursive: true, force: true })
  }
}
