/**
 * The pickup queue's reads at every cluster round (`pickup-relay.ts`) go through partial indexes
 * of the rows in the state they look for: SQLite's `EXPLAIN QUERY PLAN` of the statements the
 * queue really runs shows no scan of the whole queue. A wallet emptying a long queue reads each
 * message about once: a take reads at most `limit` + 1 pending rows and the payloads of the
 * messages it takes only, a count reads one row.
 */
import type { AgentContext } from '@credo-ts/core'
import { describe, expect, it } from 'vitest'
import type { SqliteDatabase } from '../../src/database/index.ts'
import { DatabaseQueueTransportRepository } from '../../src/didcomm/transport/DatabaseQueueTransportRepository.ts'
import { queryPlans, rowsRead } from '../support/query-plans.ts'
import { useTempDatabases } from '../support/temp-databases.ts'

describe('the pickup queue at a cluster round, on SQLite', () => {
  const databases = useTempDatabases('pickup-plans', 'sqlite')

  it.each([
    [
      'messages that gone instances had taken',
      'didcomm_pickup_queue_sending',
      (queue: DatabaseQueueTransportRepository) => queue.releaseGone(),
    ],
    [
      'connections with messages waiting',
      'didcomm_pickup_queue_pending',
      (queue: DatabaseQueueTransportRepository) => queue.pendingConnections(),
    ],
  ])('%s: read through %s', async (_name, index, read) => {
    const database = (await databases.open()) as SqliteDatabase
    const queue = await DatabaseQueueTransportRepository.open(database, 'this-instance')
    const [plan] = await queryPlans(database, () => read(queue))
    expect(plan?.some((step) => step.includes(`INDEX ${index}`))).toBe(true)
    expect(plan?.filter((step) => /^SCAN didcomm_pickup_queue$/.test(step))).toEqual([])
  })

  it('a take and a count from a long queue read the rows they need, not the queue', async () => {
    const database = (await databases.open()) as SqliteDatabase
    const queue = await DatabaseQueueTransportRepository.open(database, 'this-instance')
    const context = { contextCorrelationId: 'default' } as AgentContext
    for (let n = 0; n < 200; n++) {
      const payload = { protected: `p${n}`, iv: `iv${n}`, ciphertext: `c${n}`, tag: `t${n}` }
      await queue.addMessage(context, { connectionId: 'a', recipientDids: ['did:peer:alice'], payload, receivedAt: new Date(1_000 + n) })
    }
    let taken: Awaited<ReturnType<DatabaseQueueTransportRepository['takeFromQueue']>> = []
    const takeReads = await rowsRead(database, async () => {
      taken = await queue.takeFromQueue(context, { connectionId: 'a', limit: 10 })
    })
    expect(taken.map((message) => message.encryptedMessage.iv)).toEqual(Array.from({ length: 10 }, (_, n) => `iv${n}`))
    expect(takeReads.map((rows) => rows.length)).toEqual([11, 10]) // the oldest pending, then the ten taken
    expect(takeReads.flat().filter((row) => 'payload' in row)).toHaveLength(10)

    let count = 0
    const countReads = await rowsRead(database, async () => {
      count = await queue.getAvailableMessageCount(context, { connectionId: 'a' })
    })
    expect(count).toBe(190)
    expect(countReads.map((rows) => rows.length)).toEqual([1])
    const [plan] = await queryPlans(database, () => queue.getAvailableMessageCount(context, { connectionId: 'a' }))
    expect(plan?.filter((step) => /^SCAN didcomm_pickup_queue$/.test(step))).toEqual([])
  })
})
