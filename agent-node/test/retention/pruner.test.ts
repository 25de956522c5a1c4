/**
 * Retention (`retention/pruner.ts`, docs/operations.md "Retention") on both dialects: delivered
 * events older than EVENTS_RETENTION_DAYS go, in batches; events a subscriber has not passed and
 * events of waiting dead letters stay; replayed dead letters go with the events, never-replayed
 * ones after DEAD_LETTERS_RETENTION_DAYS; a subscriber absent from the configuration holds its
 * events for EVENTS_RETENTION_DAYS after it was found missing; 0 keeps forever. On a running agent-node, `/v1/events`
 * answers 410 for a cursor below what was pruned, and start-up recovery does not bring pruned
 * events back (a real wallet connection and message, then a restart); a finished exchange pruned
 * after RECORDS_RETENTION_DAYS answers 404 (`records.test.ts` has the rules per kind).
 */
import { InjectionSymbols } from '@credo-ts/core'
import { DidCommProofExchangeRecord, DidCommProofExchangeRepository, DidCommProofRole, DidCommProofState } from '@credo-ts/didcomm'
import { describe, expect, it } from 'vitest'
import { OutboxStore, type PublishedEvent } from '../../src/events/outbox/store.ts'
import { IDEMPOTENCY_TTL_MS, IdempotencyStore } from '../../src/messaging/idempotency.ts'
import { createLogger } from '../../src/logging/index.ts'
import { RetentionPruner } from '../../src/retention/pruner.ts'
import { TerminalRecords } from '../../src/retention/records.ts'
import type { DrizzleStorageService } from '../../src/wallet/storage/index.ts'
import { messageState } from '../support/events.ts'
import { refusedUpgrade } from '../support/refused-upgrade.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const C1 = '11111111-1111-4111-8111-111111111111'
const C2 = '22222222-2222-4222-8222-222222222222'
const DAY = 24 * 60 * 60 * 1000
const logger = createLogger('silent')

/** Appends `count` events of `connectionId`. */
function append(outbox: OutboxStore, connectionId: string, count: number): Promise<PublishedEvent[]> {
  return outbox.append(
    Array.from({ length: count }, (_, i) => ({ id: crypto.randomUUID(), connectionId, event: messageState(connectionId, i) })),
  )
}

/** Positions still in the outbox. */
async function kept(outbox: OutboxStore): Promise<number[]> {
  return (await outbox.eventsAfterPosition(0, {}, 10_000)).map((event) => event.position)
}

describe.each(dialects)('retention pruner on %s', (dialect) => {
  const databases = useTempDatabases('parley-retention-', dialect)

  it('deletes message idempotency keys once their 24 hours are over', async () => {
    const database = await databases.open()
    const idempotencyKeys = await IdempotencyStore.open(database)
    const pruner = new RetentionPruner(await OutboxStore.open(database), { eventsDays: 0, deadLettersDays: 0, recordsDays: 0 }, logger, {
      idempotencyKeys,
    })
    await idempotencyKeys.claim('admin', 'k1', 'hash', 'm1')
    await idempotencyKeys.claim('tunnel', 'k2', 'hash', 'm2')

    expect(await pruner.run(Date.now() + IDEMPOTENCY_TTL_MS - 60_000)).toEqual({ events: 0, deadLetters: 0, idempotencyKeys: 0 })
    expect((await idempotencyKeys.find('admin', 'k1'))?.messageId).toBe('m1')
    expect(await pruner.run(Date.now() + IDEMPOTENCY_TTL_MS + 60_000)).toEqual({ events: 0, deadLetters: 0, idempotencyKeys: 2 })
  })

  it('deletes old events every subscriber passed, keeps the rest and dead letters still waiting', async () => {
    const outbox = await OutboxStore.open(await databases.open())
    const pruner = new RetentionPruner(outbox, { eventsDays: 7, deadLettersDays: 30, recordsDays: 0 }, logger)
    await outbox.addSubscriber('a')
    await outbox.addSubscriber('b')
    const [e1, e2, e3] = await append(outbox, C1, 3)
    for (const name of ['a', 'b']) await outbox.cursor(name, C1, 0)
    await outbox.advance([
      { subscriber: 'a', connectionId: C1, seq: 3 },
      { subscriber: 'b', connectionId: C1, seq: 1 },
    ])
    await outbox.deadLetter('b', e2!, 'rejected', 1, 'HTTP 400') // b passes e2 by dead-lettering it

    expect(await pruner.run(Date.now() + 6 * DAY)).toEqual({ events: 0, deadLetters: 0 })
    expect(await pruner.run(Date.now() + 8 * DAY)).toEqual({ events: 1, deadLetters: 0 })
    // e2: b's dead letter waits for a replay; e3: b has not had it
    expect(await kept(outbox)).toEqual([e2!.position, e3!.position])
    expect(await outbox.prunedThrough()).toEqual({ position: e1!.position, createdAt: e1!.createdAt })

    const [letter] = await outbox.listDeadLetters({ limit: 10 })
    await outbox.requestReplay(letter!.id)
    await outbox.finishReplay(letter!, { status: 'replayed' })
    await outbox.advance([{ subscriber: 'b', connectionId: C1, seq: 3 }])
    // the replayed dead letter goes after EVENTS_RETENTION_DAYS, then nothing holds the events
    expect(await pruner.run(Date.now() + 8 * DAY)).toEqual({ events: 2, deadLetters: 1 })
    expect(await kept(outbox)).toEqual([])
    expect(await outbox.prunedThrough()).toEqual({ position: e3!.position, createdAt: e3!.createdAt })
    // positions go on from the newest ever appended, and a new subscriber starts there
    const [e4] = await append(outbox, C2, 1)
    expect(e4!.position).toBe(e3!.position + 1)
    expect(await outbox.addSubscriber('c')).toBe(e4!.position)
  })

  it('keeps events for a subscriber absent from the configuration for EVENTS_RETENTION_DAYS after it was first found missing', async () => {
    const outbox = await OutboxStore.open(await databases.open())
    const pruner = new RetentionPruner(outbox, { eventsDays: 7, deadLettersDays: 30, recordsDays: 0 }, logger)
    await outbox.addSubscriber('webhook')
    const [e1] = await append(outbox, C1, 1) // the webhook never had it
    const now = Date.now()
    await outbox.markAbsent(['webhook'], now + 3 * DAY)
    await outbox.markAbsent(['webhook'], now + 6 * DAY) // found missing again at a later start: the first time counts

    // e1 is past retention at +8 days, but the webhook has been absent for only 5
    expect(await pruner.run(now + 8 * DAY)).toEqual({ events: 0, deadLetters: 0 })
    expect(await kept(outbox)).toEqual([e1!.position])
    // absent for 8 days (more than 7): it no longer holds e1
    expect(await pruner.run(now + 11 * DAY)).toEqual({ events: 1, deadLetters: 0 })

    // configured again: present, and holding what it has not had, however old
    await outbox.addSubscriber('webhook')
    const [e2] = await append(outbox, C1, 1)
    expect(await pruner.run(now + 100 * DAY)).toEqual({ events: 0, deadLetters: 0 })
    expect(await kept(outbox)).toEqual([e2!.position])
  })

  it('deletes a dead letter never replayed after DEAD_LETTERS_RETENTION_DAYS, and then its event', async () => {
    const outbox = await OutboxStore.open(await databases.open())
    const pruner = new RetentionPruner(outbox, { eventsDays: 7, deadLettersDays: 30, recordsDays: 0 }, logger)
    await outbox.addSubscriber('a')
    const [e1] = await append(outbox, C1, 1)
    await outbox.cursor('a', C1, 0)
    await outbox.deadLetter('a', e1!, 'exhausted', 12, 'HTTP 503')
    expect(await pruner.run(Date.now() + 29 * DAY)).toEqual({ events: 0, deadLetters: 0 })
    expect(await pruner.run(Date.now() + 31 * DAY)).toEqual({ events: 1, deadLetters: 1 })
  })

  it('keeps everything with periods of 0, and deletes in batches until done', async () => {
    const outbox = await OutboxStore.open(await databases.open())
    await append(outbox, C1, 1200) // no subscriber: every event is delivered to all of them
    const forever = new RetentionPruner(outbox, { eventsDays: 0, deadLettersDays: 0, recordsDays: 0 }, logger)
    expect(await forever.run(Date.now() + 1000 * DAY)).toEqual({ events: 0, deadLetters: 0 })
    const pruner = new RetentionPruner(outbox, { eventsDays: 1, deadLettersDays: 0, recordsDays: 0 }, logger)
    expect(await pruner.run(Date.now() + 2 * DAY)).toEqual({ events: 1200, deadLetters: 0 })
    expect(await kept(outbox)).toEqual([])
  })
})

describe.each(dialects)('retention on a running agent-node on %s', (dialect) => {
  const started = useTestAgentNode(dialect)

  it('answers /v1/events?from= below the pruned position with 410, and recovery brings nothing pruned back', async () => {
    const { node, adminUrl } = started.agent
    const wallet = await WalletPeer.create({ label: 'retention-wallet', logger: createLogger('silent', 'wallet') })
    try {
      const { connectionId, walletConnectionId } = await connectWallet(node, adminUrl, wallet)
      const received = new Promise<void>((resolve) => {
        const stop = node.events.onStored((events) => {
          if (events.some((e) => e.event.type === 'message-received')) resolve(stop())
        })
      })
      await wallet.sendText(walletConnectionId, 'hello before pruning')
      await received
      const stored = await node.outbox.eventsAfterPosition(0, { connectionId }, 100)
      expect(stored.map((e) => e.event.type)).toContain('message-received')
      // every subscriber has passed them once its cursor moves are written (`delivery/engine.ts`, in batches)
      await expect.poll(() => node.outbox.lag()).toEqual([])
      const pruner = new RetentionPruner(node.outbox, { eventsDays: 1, deadLettersDays: 0, recordsDays: 0 }, logger)
      expect((await pruner.run(Date.now() + 2 * DAY)).events).toBeGreaterThanOrEqual(stored.length)

      const refused = await refusedUpgrade(started.agent, `/v1/events?from=${stored[0]!.position}`)
      expect(refused.status).toBe(410)
      expect(refused.body.error).toBe('cursor_expired')
      expect(refused.body.message).toContain(`from=${stored.at(-1)!.position}`)

      // the connection and the message changed before the pruner's mark: their events are not published again
      await started.agent.restart()
      expect(await started.agent.node.outbox.eventsAfterPosition(0, { connectionId }, 100)).toEqual([])
    } finally {
      await wallet.stop()
    }
  }, 120_000)

  it('answers 404 for a finished exchange RECORDS_RETENTION_DAYS pruned, like for a deleted one', async () => {
    const { agent } = started.agent.node
    const record = new DidCommProofExchangeRecord({
      state: DidCommProofState.Done,
      role: DidCommProofRole.Verifier,
      protocolVersion: 'v2',
      threadId: crypto.randomUUID(),
    })
    await agent.dependencyManager.resolve(DidCommProofExchangeRepository).save(agent.context, record)
    expect((await started.agent.admin(`/v1/presentations/${record.id}`)).status).toBe(200)

    const storage = agent.dependencyManager.resolve<DrizzleStorageService>(InjectionSymbols.StorageService)
    const retention = { eventsDays: 0, deadLettersDays: 0, recordsDays: 1 }
    const pruner = new RetentionPruner(started.agent.node.outbox, retention, logger, { records: new TerminalRecords(agent, storage) })
    expect((await pruner.run(Date.now() + 2 * DAY)).records?.presentations).toBeGreaterThanOrEqual(1)
    expect((await started.agent.admin(`/v1/presentations/${record.id}`)).status).toBe(404)
    const listed = (await (await started.agent.admin('/v1/presentations')).json()) as { proofExchangeId: string }[]
    expect(listed.map((p) => p.proofExchangeId)).not.toContain(record.id)
  })
})
