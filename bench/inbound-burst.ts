/**
 * Benchmark: `/health` during a burst of inbound DIDComm. agent-node runs as a child process
 * (real SQLite) so the wallet's work does not share its event loop; one Credo wallet peer sends
 * `BENCH_BURST` texts (default 300) at once over WebSocket while `/health` is called every 20 ms
 * until every text is reported as `message-received`.
 *
 * Printed: `/health` latency p50 / p99 / max over the burst, how many calls, and the burst's wall
 * time until the last text was reported.
 */
import { startKillableAgent } from '../test/support/killable-agent.ts'
import { ms, percentile, summarize } from './stats.ts'

const BURST = Number(process.env.BENCH_BURST ?? 300)

export async function runInboundBurst(): Promise<void> {
  const stack = await startKillableAgent('bench-burst')
  try {
    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    const walletConnectionId = await stack.wallet.connect(url)
    const reported = () => stack.receiver.events.filter((e) => e.topic === 'message-received').length
    const start = performance.now()
    void Promise.allSettled(Array.from({ length: BURST }, (_, n) => stack.wallet.sendText(walletConnectionId, `burst ${n}`)))
    const latencies: number[] = []
    while (reported() < BURST) {
      const called = performance.now()
      await fetch(`${stack.agent.publicUrl}/health`)
      latencies.push(performance.now() - called)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const seconds = (performance.now() - start) / 1000
    const { p50, p99 } = summarize(latencies)
    console.log(`/health during a burst of ${BURST} texts: p50 ${ms(p50)} / p99 ${ms(p99)} / max ${ms(percentile(latencies, 100))} (${latencies.length} calls); burst reported in ${seconds.toFixed(1)} s`)
  } finally {
    await stack.stop()
  }
}
