/**
 * Two agent-nodes in this process on one PostgreSQL database (the multi-instance set-up; SQLite
 * is one process per file): an event subscription created through one instance is delivered by
 * whichever instance holds its lease, events appended on the other instance wake it, and when
 * the holder stops, the other instance, which learnt of the subscription at run time, takes it
 * over and delivers the next events. Each event arrives once.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deliveryLease } from '../../src/cluster/LeasedDelivery.ts'
import { LeaseStore } from '../../src/cluster/leases.ts'
import { openDatabase, type Database } from '../../src/database/index.ts'
import { subscriberName } from '../../src/events/subscriptions/service.ts'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts'
import { messageState } from '../support/events.ts'
import { usePostgresTestDatabase } from '../support/temp-databases.ts'

describe('two agent-nodes on one PostgreSQL database', () => {
  const postgres = usePostgresTestDatabase()
  let a: TestAgentNode
  let b: TestAgentNode
  let receiver: EventReceiver
  let database: Database

  beforeAll(async () => {
    receiver = await startEventReceiver()
    const shared = { DATABASE_URL: postgres.url, PUBLIC_API_BASE_URL: 'http://localhost:3999', LEASE_TTL_SECONDS: '30' }
    a = await startTestAgentNode({ ...shared, INSTANCE_ID: 'node-a' })
    b = await startTestAgentNode({ ...shared, INSTANCE_ID: 'node-b', AGENT_WALLET_KEY: a.config.walletKey })
    database = await openDatabase(postgres.url)
  }, 120_000)

  afterAll(async () => {
    await b?.close()
    await a?.close()
    await receiver?.close()
    await database?.close()
  })

  const holder = async (name: string) => (await LeaseStore.open(database)).holder(deliveryLease(name))
  const delivered = (id: string) => receiver.events.filter((event) => event.headers['webhook-id'] === id)

  it('delivers a subscription made through one instance, woken by events the other appends; the other takes it over at a stop', {
    timeout: 60_000,
  }, async () => {
    expect(b.node.publicDid).toBe(a.node.publicDid)
    const subscription = await b.subscribe({ url: receiver.url })
    const name = subscriberName(subscription.id)
    expect(await holder(name)).toBe('node-b') // the first to want it

    const connectionId = randomUUID()
    // appended by the other instance: the holder hears of it through a notification (its own
    // periodic check comes only every 10 s with LEASE_TTL_SECONDS 30)
    const first = await a.node.events.publish(messageState(connectionId, 1))
    await expect.poll(() => delivered(first.id).length, { timeout: 5_000 }).toBe(1)

    await b.close() // releases its leases: node-a takes this one at its next round
    await expect.poll(() => holder(name), { timeout: 20_000 }).toBe('node-a')
    const second = await a.node.events.publish(messageState(connectionId, 2))
    await expect.poll(() => delivered(second.id).length, { timeout: 10_000 }).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(delivered(first.id)).toHaveLength(1)
    expect(delivered(second.id)).toHaveLength(1)
  })
})
