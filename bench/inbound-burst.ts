/**
 * Benchmark: `/health` during a burst of inbound DIDComm. agent-node runs as a child process
 * (real SQLite) and `/health` is called every 20 ms by another child process, so the wallet's
 * work (packing the burst) shares neither's event loop; one Credo wallet peer sends `BENCH_BURST`
 * texts (default 300) at once over WebSocket, until every text is reported as `message-received`.
 *
 * Printed: `/health` latency p50 / p99 / max over the burst, how many calls, the burst's wall
 * time until the last text was reported, and agent-node's event-loop delay p99 / max over the
 * burst (prom-client's `nodejs_eventloop_lag_*` from the admin `/metrics`, 10 ms resolution; a
 * scrape resets them, so one just before the burst starts the window).
 */
import { spawn } from 'node:child_process'
import { startKillableAgent } from '../test/support/killable-agent.ts'
import { readGauges } from './agent-metrics.ts'
import { ms, percentile, summarize } from './stats.ts'

const BURST = Number(process.env.BENCH_BURST ?? 300)

/**
 * A loop timing `GET <argv[1]>` every 20 ms, one line per call: milliseconds, or `failed <reason>`.
 * A first call, not timed, loads `fetch` and opens the connection.
 */
const PROBER = `const url = process.argv[1]
await fetch(url).then((r) => r.arrayBuffer())
for (;;) {
  const start = performance.now()
  try {
    await fetch(url).then((r) => r.arrayBuffer())
    console.log((performance.now() - start).toFixed(2))
  } catch (error) {
    console.log('failed ' + (error.cause?.code ?? error.message) + ' after ' + (performance.now() - start).toFixed(0) + ' ms')
  }
  await new Promise((r) => setTimeout(r, 20))
}`

/** agent-node's event-loop delay p99 and max in ms since the previous scrape of its `/metrics`. */
async function eventLoopDelay(adminUrl: string): Promise<{ p99: number; max: number }> {
  const lag = await readGauges(adminUrl, ['nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds'])
  return { p99: lag.nodejs_eventloop_lag_p99_seconds * 1000, max: lag.nodejs_eventloop_lag_max_seconds * 1000 }
}

export async function runInboundBurst(): Promise<void> {
  const stack = await startKillableAgent('bench-burst')
  try {
    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    const walletConnectionId = await stack.wallet.connect(url)
    const reported = () => stack.receiver.events.filter((e) => e.topic === 'message-received').length
    // the prober prints one latency (ms) per line until it is killed
    const prober = spawn(process.execPath, ['-e', PROBER, `${stack.agent.publicUrl}/health`], { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    prober.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await eventLoopDelay(stack.agent.adminUrl) // resets the histogram: the window starts here
    const start = performance.now()
    await Promise.allSettled(Array.from({ length: BURST }, (_, n) => stack.wallet.sendText(walletConnectionId, `burst ${n}`)))
    while (reported() < BURST) await new Promise((resolve) => setTimeout(resolve, 20))
    const seconds = (performance.now() - start) / 1000
    const delay = await eventLoopDelay(stack.agent.adminUrl)
    prober.kill()
    const lines = output.trim().split('\n').filter(Boolean)
    const failures = lines.filter((line) => line.startsWith('failed'))
    const latencies = lines.filter((line) => !line.startsWith('failed')).map(Number)
    const { p50, p99 } = summarize(latencies)
    console.log(
      `/health during a burst of ${BURST} texts: p50 ${ms(p50)} / p99 ${ms(p99)} / max ${ms(percentile(latencies, 100))} (${latencies.length} answered, ${failures.length} failed${failures.length ? `: ${[...new Set(failures)].join('; ')}` : ''}); burst reported in ${seconds.toFixed(1)} s; agent-node event-loop delay p99 ${ms(delay.p99)} / max ${ms(delay.max)}`,
    )
  } finally {
    await stack.stop()
  }
}
