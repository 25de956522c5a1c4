/**
 * Benchmark: what the public port costs an unauthenticated peer to refuse, on an in-process
 * agent-node (SQLite on disk, default limits: DIDCOMM_MAX_ENVELOPE_BYTES 5 MiB,
 * DIDCOMM_MAX_RECIPIENTS 8).
 *
 * Printed:
 * - the recipients bomb (a 5 MB envelope listing as many bogus recipients as fit) over HTTP:
 *   time to the 400, p50/p99 over `BENCH_BOMBS` requests (default 20), and the longest event-loop
 *   stall meanwhile; over WebSocket: time to the close (1008);
 * - oversized bodies: 10 chunked POSTs that would each be 300 MB, time to each 413 and the RSS after;
 * - 5,000 WebSocket connects and closes (`BENCH_SOCKETS`): RSS and heap before and after (after
 *   a full GC when node runs with --expose-gc), and the sockets agent-node still holds.
 * `BENCH_UNBOUNDED=1` also times 3 envelopes of 1,000 bogus recipients with the limit raised to
 * 1,000: what each recipient costs once past the pre-check (the cost the limit removes).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import WebSocket from 'ws'
import { startTestAgentNode, type TestAgentNode } from '@parley/agent-node/testing/agent-node'
import { chunkedPost } from '@parley/agent-node/testing/chunked-post'
import { bogusEnvelope, recipientsBomb } from '@parley/agent-node/testing/envelopes'
import { ms, summarize } from './stats.ts'

const BOMBS = Number(process.env.BENCH_BOMBS ?? 20)
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 5_000)
const MiB = 1024 * 1024

const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`

/** POSTs `body` as a DIDComm envelope; resolves with the status and the time to the answer. */
async function post(agent: TestAgentNode, body: string): Promise<{ status: number; ms: number }> {
  const start = performance.now()
  const response = await fetch(`http://127.0.0.1:${agent.node.publicPort}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/didcomm-envelope-enc' },
    body,
  })
  await response.arrayBuffer()
  return { status: response.status, ms: performance.now() - start }
}

async function bombs(
  agent: TestAgentNode,
  label: string,
  count: number,
  { envelope, recipients } = recipientsBomb(5_000_000),
): Promise<void> {
  const stall = monitorEventLoopDelay({ resolution: 10 })
  stall.enable()
  const times: number[] = []
  const statuses = new Set<number>()
  for (let i = 0; i < count; i++) {
    const { status, ms: took } = await post(agent, envelope)
    statuses.add(status)
    times.push(took)
  }
  stall.disable()
  const { p50, p99 } = summarize(times)
  console.log(
    `${label}: ${recipients} recipients, ${mib(envelope.length)}: HTTP ${[...statuses].join('/')} in p50 ${ms(p50)} / p99 ${ms(p99)} (n = ${count}); longest event-loop stall ${ms(stall.max / 1e6)}`,
  )
}

async function bombOverWebSocket(agent: TestAgentNode): Promise<void> {
  const { envelope } = recipientsBomb(5_000_000)
  const times: number[] = []
  let code = 0
  for (let i = 0; i < BOMBS; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${agent.node.publicPort}`)
    await new Promise((resolve) => ws.once('open', resolve))
    const start = performance.now()
    ws.send(envelope)
    code = await new Promise<number>((resolve) => ws.once('close', resolve))
    times.push(performance.now() - start)
  }
  const { p50, p99 } = summarize(times)
  console.log(`recipients bomb over WebSocket: close ${code} in p50 ${ms(p50)} / p99 ${ms(p99)} (n = ${BOMBS})`)
}

/** Runs a full garbage collection when node was started with --expose-gc. */
const collect = () => (globalThis as { gc?: () => void }).gc?.()

async function connectsAndCloses(agent: TestAgentNode): Promise<void> {
  collect()
  const before = process.memoryUsage()
  for (let i = 0; i < SOCKETS; i++) {
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${agent.node.publicPort}`)
      ws.once('error', reject)
      ws.once('open', () => ws.close())
      ws.once('close', () => resolve())
    })
  }
  while (agent.node.openPublicSockets > 0) await new Promise((r) => setTimeout(r, 10))
  collect()
  const after = process.memoryUsage()
  console.log(
    `${SOCKETS} WebSocket connects/closes: RSS ${mib(before.rss)} -> ${mib(after.rss)}, heap used ${mib(before.heapUsed)} -> ${mib(after.heapUsed)} (client and agent in one process${(globalThis as { gc?: unknown }).gc ? ', after GC' : ''}); sockets still held: ${agent.node.openPublicSockets}`,
  )
}

export async function runPublicLimits(): Promise<void> {
  const agent = await startTestAgentNode({}, { label: 'bench-limits' })
  try {
    await bombs(agent, 'recipients bomb over HTTP', BOMBS)
    await bombOverWebSocket(agent)
    const refusals: number[] = []
    let status = 0
    for (let i = 0; i < 10; i++) {
      const answer = await chunkedPost(agent.node.publicPort, '/', 'application/didcomm-envelope-enc', 300 * 1_000_000)
      status = answer.status
      refusals.push(answer.ms)
    }
    const { p50, p99 } = summarize(refusals)
    console.log(
      `10 chunked bodies of up to 300 MB: HTTP ${status} in p50 ${ms(p50)} / p99 ${ms(p99)}; RSS after ${mib(process.memoryUsage().rss)}`,
    )
    await connectsAndCloses(agent)
  } finally {
    await agent.close()
  }
  if (process.env.BENCH_UNBOUNDED === '1') {
    const unbounded = await startTestAgentNode({ DIDCOMM_MAX_RECIPIENTS: '1000' }, { label: 'bench-unbounded' })
    try {
      await bombs(unbounded, 'with DIDCOMM_MAX_RECIPIENTS=1000, an envelope of 1000 bogus recipients (Credo looks each up)', 3, {
        envelope: bogusEnvelope(1000),
        recipients: 1000,
      })
    } finally {
      await unbounded.close()
    }
  }
}
