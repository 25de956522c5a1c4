/**
 * Benchmark: event subscriptions on an in-process agent-node (SQLite on disk), events published
 * directly (no DIDComm), receivers on loopback.
 *
 * Printed, for a WebSocket subscription (agent dials out, acks) and an HTTP subscription (POST
 * per event, 204):
 * - latency: publish (stored) -> applied by the receiver, one event in flight, `BENCH_MESSAGES`
 *   samples (default 200) after 20 warm-up;
 * - throughput: `BENCH_EVENTS` events (default 2000) over 10 connections published at once,
 *   until the receiver has them all (connections in parallel, each in order, one in flight each).
 * And for the admin stream `/v1/events`: replay of the whole outbox from `from=0` (events/s).
 */
import WebSocket from 'ws'
import { startEventReceiver } from '@parley/agent-node/testing/event-receiver'
import { startTestAgentNode, type TestAgentNode } from '@parley/agent-node/testing/agent-node'
import { messageState } from '@parley/agent-node/testing/events'
import { startWsSubscriber } from '@parley/agent-node/testing/ws-subscriber'
import { ms, summarize } from './stats.ts'

const SAMPLES = Number(process.env.BENCH_MESSAGES ?? 200)
const WARMUP = 20
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000)
const CONNECTIONS = 10

interface Receiver {
  /** How many distinct events arrived. */
  count(): number
  until(condition: () => boolean): Promise<void>
}

async function measure(agent: TestAgentNode, label: string, receiver: Receiver): Promise<void> {
  const latency: number[] = []
  const single = crypto.randomUUID()
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const expected = receiver.count() + 1
    const start = performance.now()
    await agent.node.events.publish(messageState(single, i))
    await receiver.until(() => receiver.count() >= expected)
    if (i >= WARMUP) latency.push(performance.now() - start)
  }
  const { p50, p99 } = summarize(latency)
  const connections = Array.from({ length: CONNECTIONS }, () => crypto.randomUUID())
  const target = receiver.count() + EVENTS
  const start = performance.now()
  await Promise.all(Array.from({ length: EVENTS }, (_, i) => agent.node.events.publish(messageState(connections[i % CONNECTIONS]!, i))))
  await receiver.until(() => receiver.count() >= target)
  const seconds = (performance.now() - start) / 1000
  console.log(
    `${label}: latency p50 ${ms(p50)} / p99 ${ms(p99)} (n = ${SAMPLES}); throughput ${(EVENTS / seconds).toFixed(0)} events/s (${EVENTS} events, ${CONNECTIONS} connections)`,
  )
}

export async function runEventSubscriptions(): Promise<void> {
  const agent = await startTestAgentNode()
  try {
    const ws = await startWsSubscriber()
    const wsSub = await agent.subscribe({ url: ws.url })
    await measure(agent, 'websocket subscription', { count: () => ws.applied.length, until: ws.until })
    await agent.admin(`/v1/event-subscriptions/${wsSub.id}`, { method: 'DELETE' })
    await ws.stop()

    const http = await startEventReceiver()
    const httpReceiver: Receiver = {
      count: () => http.events.length,
      // `waitFor` re-checks its predicate on every arrival; this one looks at the count only.
      until: async (condition) => {
        if (!condition()) await http.waitFor(condition, 120_000)
      },
    }
    const httpSub = await agent.subscribe({ url: http.url })
    await measure(agent, 'http subscription', httpReceiver)
    await agent.admin(`/v1/event-subscriptions/${httpSub.id}`, { method: 'DELETE' })
    await http.close()

    const total = await agent.node.outbox.newestPosition()
    const start = performance.now()
    await new Promise<void>((resolve, reject) => {
      let received = 0
      const socket = new WebSocket(`ws://127.0.0.1:${agent.node.adminPort}/v1/events?from=0`)
      socket.on('error', reject)
      socket.on('message', () => {
        if (++received < total) return
        socket.close()
        resolve()
      })
    })
    const seconds = (performance.now() - start) / 1000
    console.log(`/v1/events replay from=0: ${(total / seconds).toFixed(0)} events/s (${total} events)`)
  } finally {
    await agent.close()
  }
}
