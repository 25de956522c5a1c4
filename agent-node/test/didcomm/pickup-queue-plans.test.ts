/**
 * The pickup queue's reads at every cluster round (`pickup-relay.ts`) go through partial indexes
 * of the rows in the state they look for: SQLite's `EXPLAIN QUERY PLAN` of the statements the
 * queue really runs shows no scan of the whole queue.
 */
import { describe, expect, it } from 'vitest'
import type { SqliteDatabase } from '../../src/database/index.ts'
import { DatabaseQueueTransportRepository } from '../../src/didcomm/transport/DatabaseQueueTransportRepository.ts'
import { queryPlans } from '../support/query-plans.ts'
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
})
