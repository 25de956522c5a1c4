/**
 * The outbox and its delivery engine on a real database (SQLite and PostgreSQL), with scripted subscribers
 * (unit scope): per-connection order, parallel connections, retry classes, dead letters,
 * replay, recovery after a restart, filters, and the backoff schedule.
 */
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '@parley/shared'
import { DeliveryEngine } from '../../src/events/delivery/engine.ts'
import { retryDelay, type RetryPolicy } from '../../src/events/delivery/retry.ts'
import type { DeliveryOutcome, Subscriber } from '../../src/events/delivery/subscriber.ts'
import { OutboxStore, type PublishedEvent } from '../../src/events/outbox/store.ts'
import { EventPublisher } from '../../src/events/publisher.ts'
import { createLogger } from '../../src/logging/index.ts'
import { recordDeliveries } from '../support/delivery-records.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'
import { eventually } from '../support/conditions.ts'

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'
const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'
const FAST: RetryPolicy = { maxAttempts: 4, baseDelayMs: 2, maxDelayMs: 5 }
const logger = createLogger('silent')

const stateEvent = (connectionId: string, n: number): AgentEvent => ({
  type: 'message-state-updated',
  messageId: crypto.randomUUID(),
  connectionId,
  state: 'sent',
  timestamp: n,
})

/**
 * A subscriber whose answers a test decides (`answer` picks the outcome of each attempt), and
 * what the engine recorded for it: `until` waits for a condition re-checked after each record.
 */
function scripted(
  engine: DeliveryEngine,
  name: string,
  answer: (event: PublishedEvent, attempt: number) => DeliveryOutcome | Promise<DeliveryOutcome>,
  retry = FAST,
) {
  const attempts: PublishedEvent[] = []
  const subscriber: Subscriber = {
    name,
    retry,
    async deliver(event) {
      attempts.push(event)
      return answer(event, attempts.filter((e) => e.id === event.id).length)
    },
  }
  const { records, until } = recordDeliveries(engine, name)
  return {
    subscriber,
    attempts,
    records,
    until,
    get acknowledged() {
      return records.filter((r) => r.status === 'acknowledged' || r.status === 'replayed').map((r) => r.event)
    },
  }
}

const ack = (): DeliveryOutcome => ({ result: 'acknowledged' })
const seqsOf = (events: PublishedEvent[], connectionId: string) => events.filter((e) => e.connectionId === connectionId).map((e) => e.seq)

describe.each(dialects)('event outbox and delivery engine on %s', (dialect) => {
  const databases = useTempDatabases('parley-outbox-', dialect)

  async function open() {
    const store = await OutboxStore.open(await databases.open())
    const engine = new DeliveryEngine(store, logger)
    return { store, engine, publisher: new EventPublisher(store, engine, logger) }
  }

  it('hands an event to a subscriber only once the database has synced it to disk', async () => {
    const database = await databases.open()
    const sync = database.syncToDisk
    let synced = false
    let requested = 0
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    database.syncToDisk = async () => {
      requested++
      await gate
      await sync()
      synced = true
    }
    const store = await OutboxStore.open(database)
    const engine = new DeliveryEngine(store, logger)
    const publisher = new EventPublisher(store, engine, logger)
    const syncedAtDelivery: boolean[] = []
    await engine.addSubscriber({
      name: 'durable',
      retry: FAST,
      async deliver() {
        syncedAtDelivery.push(synced)
        return ack()
      },
    })
    await publisher.publish(stateEvent(A, 1))
    await eventually(() => expect(requested).toBeGreaterThan(0))
    expect(syncedAtDelivery).toEqual([]) // waiting for the disk
    release()
    await eventually(() => expect(syncedAtDelivery).toEqual([true]))
    await engine.stop()
  })

  it('numbers each connection from 1 and keeps the numbering across a reopen', async () => {
    const first = await open()
    const stored = await Promise.all([stateEvent(A, 1), stateEvent(B, 1), stateEvent(A, 2)].map((e) => first.publisher.publish(e)))
    expect(stored.map((e) => [e.connectionId, e.seq])).toEqual([
      [A, 1],
      [B, 1],
      [A, 2],
    ])
    const again = await OutboxStore.open(await databases.open())
    const [next] = await again.append([{ id: crypto.randomUUID(), connectionId: A, event: stateEvent(A, 3) }])
    expect(next!.seq).toBe(3)
    expect((await again.event(stored[0]!.id))?.event).toEqual(stored[0]!.event)
  })

  it('hands out positions without gaps that become visible in increasing order, across concurrent writers', async () => {
    const writers = [await OutboxStore.open(await databases.open()), await OutboxStore.open(await databases.open())]
    const reader = await OutboxStore.open(await databases.open())
    const BATCHES = 10
    const PER_BATCH = 5
    // A reader following the outbox by position, as `/v1/events` does: had a later position been
    // visible before an earlier one, it would have stepped over the earlier one for good.
    let writing = true
    const seen: number[] = []
    const following = (async () => {
      for (;;) {
        const writersDone = !writing // this read starts after the last commit: it catches up
        const batch = await reader.eventsAfterPosition(seen.at(-1) ?? 0, {}, 1_000)
        seen.push(...batch.map((e) => e.position))
        if (writersDone && batch.length === 0) return
      }
    })()
    const appended = await Promise.all(
      writers.flatMap((writer) =>
        Array.from({ length: BATCHES }, () =>
          writer.append(
            Array.from({ length: PER_BATCH }, (_, i) => ({
              id: crypto.randomUUID(),
              connectionId: i % 2 ? A : B,
              event: stateEvent(i % 2 ? A : B, i),
            })),
          ),
        ),
      ),
    )
    writing = false
    await following

    const total = 2 * BATCHES * PER_BATCH
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => i + 1))
    for (const batch of appended) expect(batch.map((e) => e.position)).toEqual(batch.map((_, i) => batch[0]!.position + i))
    const byPosition = appended.flat().sort((x, y) => x.position - y.position)
    expect(seqsOf(byPosition, A)).toEqual(Array.from({ length: seqsOf(byPosition, A).length }, (_, i) => i + 1))
    expect(seqsOf(byPosition, B)).toEqual(Array.from({ length: seqsOf(byPosition, B).length }, (_, i) => i + 1))
  })

  it('delivers one connection in order, the next event only after the previous is acknowledged, while others proceed', async () => {
    const { engine, publisher } = await open()
    let releaseA!: () => void
    const heldA = new Promise<void>((resolve) => (releaseA = resolve))
    const sub = scripted(engine, 's', async (event) => {
      if (event.connectionId === A && event.seq === 1) await heldA
      return ack()
    })
    await engine.addSubscriber(sub.subscriber)
    for (let i = 1; i <= 5; i++) {
      void publisher.publish(stateEvent(A, i))
      void publisher.publish(stateEvent(B, i))
    }
    await sub.until(() => seqsOf(sub.acknowledged, B).length === 5)
    // B is done while A's first event is still unanswered: nothing after it was attempted.
    expect(seqsOf(sub.attempts, A)).toEqual([1])
    releaseA()
    await sub.until(() => seqsOf(sub.acknowledged, A).length === 5)
    expect(seqsOf(sub.attempts, A)).toEqual([1, 2, 3, 4, 5])
    expect(seqsOf(sub.acknowledged, B)).toEqual([1, 2, 3, 4, 5])
    await engine.stop()
  })

  it("with a send window, sends up to maxInFlight of a connection's events before the first answer, taking answers in order", async () => {
    const { engine, publisher } = await open()
    let releaseFirst!: () => void
    const heldFirst = new Promise<void>((resolve) => (releaseFirst = resolve))
    const sub = scripted(engine, 's', async (event) => {
      if (event.seq === 1) await heldFirst
      return ack()
    })
    await engine.addSubscriber({ ...sub.subscriber, maxInFlight: 4 })
    const all = Array.from({ length: 10 }, (_, i) => i + 1)
    for (const n of all) void publisher.publish(stateEvent(A, n))
    // 2, 3 and 4 are answered at once, but nothing is recorded (and no cursor moves) before 1
    await eventually(() => expect(seqsOf(sub.attempts, A)).toEqual([1, 2, 3, 4]))
    expect(sub.records).toEqual([])
    releaseFirst()
    await sub.until(() => sub.acknowledged.length === 10)
    expect(seqsOf(sub.acknowledged, A)).toEqual(all)
    expect(seqsOf(sub.attempts, A)).toEqual(all) // nothing sent twice
    await engine.stop()
  })

  it('with a send window, a failed event is sent again before the events sent after it, which come again in order', async () => {
    const { engine, publisher } = await open()
    // A receiver as the tunnel's worker: it stores a connection's events in order, drops repeats,
    // fails event 3 once, and holds back (never answers in time) what comes after a failure.
    const stored: number[] = []
    let failedOnce = false
    const sub = scripted(engine, 's', async (event) => {
      if (event.seq <= stored.length) return ack() // a repeat
      if (event.seq > stored.length + 1) return { result: 'retry', error: 'held back' }
      if (event.seq === 3 && !failedOnce) {
        failedOnce = true
        return { result: 'retry', error: 'not stored' }
      }
      stored.push(event.seq)
      return ack()
    })
    await engine.addSubscriber({ ...sub.subscriber, maxInFlight: 4 })
    const all = Array.from({ length: 12 }, (_, i) => i + 1)
    for (const n of all) void publisher.publish(stateEvent(A, n))
    await sub.until(() => sub.acknowledged.length === 12)
    expect(stored).toEqual(all)
    expect(seqsOf(sub.acknowledged, A)).toEqual(all)
    expect(sub.records.filter((r) => r.status === 'retry-scheduled').map((r) => r.event.seq)).toEqual([3])
    // 4, 5 and 6 had been sent ahead of 3's answer: they are sent again after 3 was stored
    expect(seqsOf(sub.attempts, A).slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 3, 4])
    await engine.stop()
  })

  it('retries transient failures, dead-letters a rejection at once and gives up after the attempt limit', async () => {
    const { store, engine, publisher } = await open()
    const sub = scripted(engine, 's', (event, attempt) => {
      const n = (event.event as { timestamp: number }).timestamp
      if (n === 1) return attempt < 3 ? { result: 'retry', error: 'HTTP 503' } : ack()
      if (n === 2) return { result: 'rejected', error: 'HTTP 422' }
      if (n === 3) return { result: 'retry', error: 'connection refused' }
      return ack()
    })
    await engine.addSubscriber(sub.subscriber)
    for (let n = 1; n <= 4; n++) void publisher.publish(stateEvent(A, n))
    await sub.until(() => sub.acknowledged.some((e) => e.seq === 4))

    expect(sub.attempts.map((e) => e.seq)).toEqual([1, 1, 1, 2, 3, 3, 3, 3, 4])
    const letters = await store.listDeadLetters({ limit: 10 })
    expect(letters.map((l) => [l.seq, l.reason, l.attempts, l.lastError, l.status]).sort()).toEqual([
      [2, 'rejected', 1, 'HTTP 422', 'dead'],
      [3, 'exhausted', 4, 'connection refused', 'dead'],
    ])
    await engine.stop()
  })

  it('replays a dead letter before the connection goes on, and records the outcome', async () => {
    const { store, engine, publisher } = await open()
    let accept = false
    const sub = scripted(engine, 's', () => (accept ? ack() : { result: 'rejected', error: 'HTTP 400' }))
    await engine.addSubscriber(sub.subscriber)
    const first = await publisher.publish(stateEvent(A, 1))
    await sub.until(() => sub.records.length === 1)
    const [letter] = await store.listDeadLetters({ limit: 10, status: 'dead' })
    expect(letter?.eventId).toBe(first.id)

    accept = true
    const replaying = await engine.replay(letter!.id)
    expect(replaying?.status).toBe('replaying')
    await sub.until(() => sub.acknowledged.length === 1)
    expect(sub.acknowledged[0]!.id).toBe(first.id)
    expect((await store.deadLetterById(letter!.id))?.status).toBe('replayed')
    expect(await engine.replay(crypto.randomUUID())).toBeUndefined()
    await engine.stop()
  })

  it('resumes after a restart: undelivered events go out, acknowledged ones do not, the retry state is kept', async () => {
    const path = databases.path
    const store = await OutboxStore.open(await databases.open(path))
    const engine = new DeliveryEngine(store, logger)
    const publisher = new EventPublisher(store, engine, logger)
    const down = scripted(engine, 'webhook', (event) => (event.seq === 1 ? ack() : { result: 'retry', error: 'HTTP 500' }), {
      maxAttempts: 100,
      baseDelayMs: 3_600_000,
      maxDelayMs: 3_600_000,
    })
    await engine.addSubscriber(down.subscriber)
    for (let n = 1; n <= 3; n++) await publisher.publish(stateEvent(A, n))
    await down.until(() => down.records.some((r) => r.status === 'retry-scheduled'))
    await engine.stop()
    const cursor = await store.cursor('webhook', A, 0)
    expect(cursor).toMatchObject({ deliveredSeq: 1, attempts: 1, lastError: 'HTTP 500' })
    expect(cursor.nextAttemptAt).toBeGreaterThan(Date.now())

    // "Restart": a new engine on the same database; the stored retry time has not come yet,
    // so rewind it as time passing would, and the lane resumes from the stored cursor.
    const reopened = await OutboxStore.open(await databases.open(path))
    await reopened.scheduleRetry('webhook', A, 1, 0, 'HTTP 500')
    const restarted = new DeliveryEngine(reopened, logger)
    const up = scripted(restarted, 'webhook', ack)
    await restarted.addSubscriber(up.subscriber)
    await up.until(() => up.acknowledged.length === 2)
    expect(up.attempts.map((e) => e.seq)).toEqual([2, 3])
    await restarted.stop()
  })

  it('gives a new subscriber only the events appended after it was added, filtered by its `accepts`', async () => {
    const { engine, publisher } = await open()
    await publisher.publish(stateEvent(A, 1))
    const onlyB = scripted(engine, 'late', ack)
    onlyB.subscriber.accepts = (event) => event.connectionId === B
    await engine.addSubscriber(onlyB.subscriber)
    for (const c of [A, B, A, B]) await publisher.publish(stateEvent(c, 2))
    await onlyB.until(() => onlyB.acknowledged.length === 2)
    expect(onlyB.attempts.map((e) => [e.connectionId, e.seq])).toEqual([
      [B, 1],
      [B, 2],
    ])
    await engine.removeSubscriber('late', { forget: true })
    expect(engine.subscriberNames).toEqual([])
    await engine.stop()
  })

  it('opens lanes at start only where the outbox holds work for the subscriber, not for every connection', async () => {
    const { store, engine, publisher } = await open()
    const old = Array.from({ length: 30 }, () => crypto.randomUUID())
    await Promise.all(old.map((c) => publisher.publish(stateEvent(c, 1))))
    const late = scripted(engine, 'late', ack)
    await engine.addSubscriber(late.subscriber)
    // every connection's events predate the subscriber: no lane, no cursor to make
    expect(await store.connectionsWithWork('late')).toEqual([])
    await publisher.publish(stateEvent(old[0]!, 2))
    await late.until(() => late.acknowledged.length === 1)
    await engine.stop()
    expect(late.attempts.map((e) => [e.connectionId, e.seq])).toEqual([[old[0], 2]])
    // an event for it, not delivered yet (the subscriber is stopped): that connection only
    await publisher.publish(stateEvent(old[1]!, 2))
    expect(await store.connectionsWithWork('late')).toEqual([old[1]])
  })

  it('keeps an idle lane: the next events of a connection need no cursor read, and skipped events cost no write of their own', async () => {
    const { store, engine, publisher } = await open()
    const reads = { cursor: 0, advance: 0 }
    const cursor = store.cursor.bind(store)
    const advance = store.advance.bind(store)
    store.cursor = (...args) => {
      reads.cursor++
      return cursor(...args)
    }
    store.advance = (...args) => {
      reads.advance++
      return advance(...args)
    }
    const taker = scripted(engine, 'taker', ack)
    const skipper = scripted(engine, 'skipper', ack)
    skipper.subscriber.accepts = () => false
    await engine.addSubscriber(taker.subscriber)
    await engine.addSubscriber(skipper.subscriber)
    for (let n = 1; n <= 5; n++) {
      await publisher.publish(stateEvent(A, n))
      await taker.until(() => taker.acknowledged.length === n)
    }
    expect(reads.cursor).toBe(2) // once per lane (taker and skipper in A), not once per event
    // The skipper's moves rode along with the taker's 20 ms writes: no write of their own.
    await engine.stop()
    expect(reads.advance).toBeLessThanOrEqual(taker.acknowledged.length + 1)
    expect(await store.cursor('skipper', A, 0)).toMatchObject({ deliveredSeq: 5 })
    expect(await store.cursor('taker', A, 0)).toMatchObject({ deliveredSeq: 5 })
  })

  it('writes moves past skipped events within the longer window when nothing else is written', async () => {
    const { store, engine, publisher } = await open()
    const skipper = scripted(engine, 'skipper', ack)
    skipper.subscriber.accepts = () => false
    await engine.addSubscriber(skipper.subscriber)
    await publisher.publish(stateEvent(A, 1))
    await expect.poll(async () => (await store.cursor('skipper', A, 0)).deliveredSeq, { timeout: 5_000 }).toBe(1)
    await engine.stop()
  })

  it('a publish that cannot be stored rejects for the caller who awaits it and is logged otherwise', async () => {
    const database = await databases.open()
    const store = await OutboxStore.open(database)
    const publisher = new EventPublisher(store, new DeliveryEngine(store, logger), logger)
    await database.close()
    await expect(publisher.publish(stateEvent(A, 1))).rejects.toThrow()
    void publisher.publish(stateEvent(A, 2)) // must not become an unhandled rejection
    await publisher.drain()
  })
})

describe('retryDelay (exponential backoff, full jitter)', () => {
  const policy: RetryPolicy = { maxAttempts: 10, baseDelayMs: 1_000, maxDelayMs: 30_000 }
  it('doubles the ceiling per failed attempt up to the maximum', () => {
    const top = () => 0.999_999
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(policy, n, top))).toEqual([999, 1_999, 3_999, 7_999, 15_999, 29_999, 29_999])
  })
  it('draws uniformly below the ceiling', () => {
    expect(retryDelay(policy, 3, () => 0)).toBe(0)
    expect(retryDelay(policy, 3, () => 0.5)).toBe(2_000)
    for (let i = 0; i < 100; i++) expect(retryDelay(policy, 40)).toBeLessThan(30_000)
  })
})
