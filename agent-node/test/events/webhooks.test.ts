/**
 * Webhook delivery from the outbox to a real HTTP receiver on loopback, over a real outbox
 * (SQLite and PostgreSQL): retry classes (5xx, 4xx, network errors, timeouts), Standard Webhooks signatures
 * checked with the independent `standardwebhooks` package, dead letters listed and replayed
 * through the admin API (and its answers to bad input), and a receiver failing 30% of requests.
 */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { AgentEvent } from '@parley/shared'
import { createAdminApp } from '../../src/admin/app.ts'
import type { AdminDeps } from '../../src/admin/context.ts'
import { loadConfig } from '../../src/config/index.ts'
import { DeliveryEngine } from '../../src/events/delivery/engine.ts'
import type { RetryPolicy } from '../../src/events/delivery/retry.ts'
import { OutboxStore } from '../../src/events/outbox/store.ts'
import { EventPublisher } from '../../src/events/publisher.ts'
import { parseSigningSecret } from '../../src/events/webhooks/signing.ts'
import { WebhookSubscriber } from '../../src/events/webhooks/subscriber.ts'
import { createLogger } from '../../src/logging/index.ts'
import { startEventReceiver, type EventReceiver, type EventReceiverOptions } from '../support/event-receiver.ts'
import { recordDeliveries } from '../support/delivery-records.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const logger = createLogger('silent')
const FAST: RetryPolicy = { maxAttempts: 3, baseDelayMs: 2, maxDelayMs: 10 }
const SECRET = `whsec_${randomBytes(32).toString('base64')}`

/** The fields of the admin API's dead-letter answers (a list, one dead letter, a replay) that the tests read. */
type DeadLettersAnswer = { deadLetters: { id: string; eventId: string }[]; replaying: { eventId: string }[]; id: string; status: string }

const connection = (n: number) => `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`
const sent = (connectionId: string, n: number): AgentEvent => ({
  type: 'message-state-updated',
  messageId: crypto.randomUUID(),
  connectionId,
  state: 'sent',
  timestamp: n,
})

/** A loopback port with nothing listening (connection refused). */
/**
 * A loopback port whose connections are reset at once: a network error on every attempt. Held
 * open for the test (a closed port could be taken by a parallel test's server in the meantime).
 */
async function resettingPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer().on('connection', (socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

describe.each(dialects)('webhook delivery on %s', (dialect) => {
  const databases = useTempDatabases('parley-webhooks-', dialect)
  const cleanup: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn()
  })

  /** Outbox, engine and a webhook subscriber to `baseUrl`; `records` fills as the engine records attempts. */
  async function pipeline(baseUrl: string, options: { retry?: RetryPolicy; timeoutMs?: number; signed?: boolean } = {}) {
    const outbox = await OutboxStore.open(await databases.open())
    const delivery = new DeliveryEngine(outbox, logger)
    const publisher = new EventPublisher(outbox, delivery, logger)
    const { records, until } = recordDeliveries(delivery)
    await delivery.addSubscriber(
      new WebhookSubscriber({
        name: 'webhook:test',
        baseUrl,
        retry: options.retry ?? FAST,
        timeoutMs: options.timeoutMs ?? 5_000,
        signingKey: options.signed ? parseSigningSecret(SECRET) : undefined,
      }),
    )
    cleanup.push(() => delivery.stop())
    return { outbox, delivery, publisher, records, until }
  }

  async function receiver(options?: EventReceiverOptions): Promise<EventReceiver> {
    const started = await startEventReceiver(options)
    cleanup.push(() => started.close())
    return started
  }

  /** Calls the admin API over `outbox` and `delivery`: its status, JSON body and `Link` header. */
  function adminClient(outbox: OutboxStore, delivery: DeliveryEngine) {
    const { config } = loadConfig({ AGENT_WALLET_KEY: 'x'.repeat(32), DATA_DIR: databases.dir })
    const app = createAdminApp({
      outbox,
      delivery,
      config,
      logger,
      syncToDisk: () => outbox.syncToDisk(),
      build: { name: 'test', version: '0' },
    } as unknown as AdminDeps)
    return async (method: string, path: string, body?: string) => {
      // as a client on the admin port sends it: the admin API refuses requests without an allowed Host
      const response = await app.request(path, {
        method,
        body,
        headers: { host: '127.0.0.1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      })
      return { status: response.status, body: (await response.json()) as DeadLettersAnswer, link: response.headers.get('link') }
    }
  }

  it('signs each POST as Standard Webhooks defines; the independent library verifies it', async () => {
    const controller = await receiver()
    const { publisher } = await pipeline(controller.url, { signed: true })
    const event = await publisher.publish(sent(connection(1), 1))
    const received = await controller.waitFor(() => true)
    expect(received.topic).toBe('message-state-updated')
    expect(received.body).toEqual(event.event)
    expect(received.headers['webhook-id']).toBe(event.id)
    expect(received.headers['x-parley-event-seq']).toBe('1')

    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(received.headers[h])]),
    )
    expect(new Webhook(SECRET).verify(received.raw, headers)).toEqual(event.event)
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(received.raw, headers)).toThrow()
    expect(() => new Webhook(SECRET).verify(received.raw.replace('sent', 'viewed'), headers)).toThrow()
  })

  it('retries 5xx until acknowledged, records a 4xx without retrying, and dead-letters after the limit', async () => {
    const answers = new Map<number, number[]>([
      [1, [503, 502, 204]],
      [2, [404]],
      [3, [500, 500, 500]],
      [4, [204]],
    ])
    const controller = await receiver({ status: ({ body }) => answers.get(body.timestamp as number)!.shift() ?? 599 })
    const { outbox, publisher, records, until } = await pipeline(controller.url)
    for (let n = 1; n <= 4; n++) void publisher.publish(sent(connection(1), n))
    await until(() => records.some((r) => r.event.seq === 4 && r.status === 'acknowledged'))

    expect(controller.requests.map((r) => [r.body.timestamp, r.status])).toEqual([
      [1, 503],
      [1, 502],
      [1, 204],
      [2, 404],
      [3, 500],
      [3, 500],
      [3, 500],
      [4, 204],
    ])
    const letters = await outbox.listDeadLetters({ limit: 10 })
    expect(letters.map((l) => [l.seq, l.reason, l.attempts, l.lastError]).sort()).toEqual([
      [2, 'rejected', 1, `${controller.url}/message-state-updated answered HTTP 404`],
      [3, 'exhausted', 3, `${controller.url}/message-state-updated answered HTTP 500`],
    ])
  })

  it('retries network errors and timeouts', async () => {
    const resetting = await resettingPort()
    cleanup.push(() => resetting.close())
    const refused = await pipeline(`http://127.0.0.1:${resetting.port}`)
    void refused.publisher.publish(sent(connection(1), 1))
    await refused.until(() => refused.records.some((r) => r.status === 'dead-lettered'))
    expect(refused.records.map((r) => r.status)).toEqual(['retry-scheduled', 'retry-scheduled', 'dead-lettered'])
    expect(refused.records[2]!.error).toMatch(/ECONNRESET|socket|closed/i)

    let hung = 0
    const slow = await receiver({ status: () => (hung++ === 0 ? new Promise<number>(() => undefined) : 204) })
    const timing = await pipeline(slow.url, { timeoutMs: 100 })
    void timing.publisher.publish(sent(connection(2), 1))
    await timing.until(() => timing.records.some((r) => r.status === 'acknowledged'))
    expect(timing.records.map((r) => [r.status, r.error])).toEqual([
      ['retry-scheduled', `${slow.url}/message-state-updated: no answer within 100 ms`],
      ['acknowledged', undefined],
    ])
  })

  it('lists and replays dead letters through the admin API; bad input gets a clear 4xx', async () => {
    let accept = false
    const controller = await receiver({ status: () => (accept ? 204 : 410) })
    const { outbox, delivery, publisher, records, until } = await pipeline(controller.url)
    const call = adminClient(outbox, delivery)

    const events = [await publisher.publish(sent(connection(1), 1)), await publisher.publish(sent(connection(2), 1))]
    await until(() => records.filter((r) => r.status === 'dead-lettered').length === 2)
    const listed = await call('GET', '/v1/dead-letters?status=dead')
    expect(listed.status).toBe(200)
    expect(listed.body.deadLetters.map((l: { eventId: string }) => l.eventId).sort()).toEqual(events.map((e) => e.id).sort())
    const first = listed.body.deadLetters.find((l: { eventId: string }) => l.eventId === events[0]!.id)
    if (!first) throw new Error('the first event was not dead-lettered')
    expect(first).toMatchObject({
      subscriber: 'webhook:test',
      reason: 'rejected',
      status: 'dead',
      attempts: 1,
      seq: 1,
      event: events[0]!.event,
    })
    expect((await call('GET', `/v1/dead-letters?connectionId=${connection(2)}`)).body.deadLetters).toHaveLength(1)
    expect((await call('GET', `/v1/dead-letters/${first.id}`)).body.id).toBe(first.id)

    accept = true
    const replayed = await call('POST', `/v1/dead-letters/${first.id}/replay`)
    expect(replayed).toMatchObject({ status: 202, body: { id: first.id, status: 'replaying' } })
    await until(() => records.some((r) => r.status === 'replayed'))
    expect(controller.events.map((e) => e.headers['webhook-id'])).toEqual([events[0]!.id])
    expect((await call('GET', `/v1/dead-letters/${first.id}`)).body.status).toBe('replayed')

    const unknown = crypto.randomUUID()
    const many = await call('POST', '/v1/dead-letters/replay', JSON.stringify({ connectionId: connection(2) }))
    expect(many.status).toBe(202)
    expect(many.body.replaying.map((l: { eventId: string }) => l.eventId)).toEqual([events[1]!.id])
    await until(() => records.filter((r) => r.status === 'replayed').length === 2)
    expect((await call('POST', '/v1/dead-letters/replay', JSON.stringify({ ids: [unknown] }))).body).toEqual({
      replaying: [],
      notFound: [unknown],
    })

    expect(await call('POST', `/v1/dead-letters/${unknown}/replay`)).toMatchObject({ status: 404, body: { error: 'not_found' } })
    expect(await call('GET', '/v1/dead-letters/not-a-uuid')).toMatchObject({
      status: 400,
      body: { error: 'validation_error', issues: [{ field: 'id' }] },
    })
    expect(await call('GET', '/v1/dead-letters?limit=0')).toMatchObject({ status: 400, body: { issues: [{ field: 'limit' }] } })
    expect(await call('GET', '/v1/dead-letters?status=lost')).toMatchObject({ status: 400, body: { issues: [{ field: 'status' }] } })
    expect(await call('POST', '/v1/dead-letters/replay', '{ "ids": [')).toMatchObject({ status: 400, body: { error: 'malformed_json' } })
    expect(await call('POST', '/v1/dead-letters/replay', '{}')).toMatchObject({ status: 400, body: { error: 'validation_error' } })
    expect(await call('POST', '/v1/dead-letters/replay', '{"ids":["x"],"colour":1}')).toMatchObject({
      status: 400,
      body: { error: 'validation_error' },
    })
  })

  it('pages dead letters through the Link header, each once, those of one millisecond too', async () => {
    const controller = await receiver()
    const { outbox, delivery, publisher } = await pipeline(controller.url)
    const call = adminClient(outbox, delivery)
    const events = []
    for (let n = 1; n <= 5; n++) events.push(await publisher.publish(sent(connection(1), n)))
    // five dead letters made in one millisecond, as a burst of refusals can make them
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-11-29T12:00:00.000Z'))
    try {
      for (const event of events) await outbox.deadLetter('webhook:elsewhere', event, 'rejected', 1, 'answered HTTP 410')
    } finally {
      clock.mockRestore()
    }

    const pages: string[][] = []
    let next: string | undefined = '/v1/dead-letters?subscriber=webhook:elsewhere&limit=2'
    while (next) {
      const page = await call('GET', next)
      expect(page.status).toBe(200)
      pages.push(page.body.deadLetters.map((letter) => letter.eventId))
      next = page.link?.match(/^<([^>]+)>; rel="next"$/)?.[1]
      if (next) expect(new URL(next, 'http://admin').searchParams.get('subscriber')).toBe('webhook:elsewhere')
    }
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1])
    expect(pages.flat().sort()).toEqual(events.map((event) => event.id).sort())

    // `before` (a time) cannot tell them apart: the page after the first by time holds none of the other three
    const first = await call('GET', '/v1/dead-letters?subscriber=webhook:elsewhere&limit=2&before=2026-11-29T12:00:00.000Z')
    expect(first.body.deadLetters).toEqual([])
    expect(await call('GET', '/v1/dead-letters?cursor=not-one')).toMatchObject({ status: 400, body: { issues: [{ field: 'cursor' }] } })
  })

  it('loses nothing when the receiver answers 500 to 30% of requests: every event arrives, in order per connection', async () => {
    const controller = await receiver({ status: () => (Math.random() < 0.3 ? 500 : 204) })
    const { publisher, records, until } = await pipeline(controller.url, {
      retry: { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 1, maxDelayMs: 5 },
    })
    const published = []
    for (let n = 1; n <= 30; n++) for (let c = 1; c <= 10; c++) published.push(publisher.publish(sent(connection(c), n)))
    const all = await Promise.all(published)
    await until(() => records.filter((r) => r.status === 'acknowledged').length === all.length)

    // The receiver dedupes by webhook-id; what it applied is exactly what was published, in order per connection.
    const applied = new Map<string, number[]>()
    const seen = new Set<string>()
    for (const request of controller.events) {
      const id = String(request.headers['webhook-id'])
      if (seen.has(id)) continue
      seen.add(id)
      const connectionId = String(request.body.connectionId)
      applied.set(connectionId, [...(applied.get(connectionId) ?? []), request.body.timestamp as number])
    }
    expect(seen).toEqual(new Set(all.map((e) => e.id)))
    for (let c = 1; c <= 10; c++) expect(applied.get(connection(c))).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    expect(controller.requests.filter((r) => r.status === 500).length).toBeGreaterThan(0)
  })
})
