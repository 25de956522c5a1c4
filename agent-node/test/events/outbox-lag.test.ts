/**
 * How far each subscriber is behind (`OutboxStore.lag`, behind `/readyz` and `/metrics`): the
 * events after its cursors and the oldest of them, a lane without a cursor yet counting in full,
 * nothing once delivered, events appended after a clean look counted again, and the same after a
 * restart. It reads only the events above each subscriber's lag floor, which rises to the head
 * once everything was delivered (its plans: `outbox-read-plans.test.ts`).
 */
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { selectRows } from '../../src/database/dialect.ts'
import { LAG_SCAN_EVENTS, OutboxStore } from '../../src/events/outbox/store.ts'
import { messageState } from '../support/events.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const newEvent = (connectionId: string, n: number) => ({ id: crypto.randomUUID(), connectionId, event: messageState(connectionId, n) })

describe.each(dialects)('outbox lag on %s', (dialect) => {
  const databases = useTempDatabases('outbox-lag', dialect)

  it('counts what each subscriber has not had yet, from its cursors, until delivered; again after a restart', async () => {
    const location = databases.path
    const store = await OutboxStore.open(await databases.open(location))
    const start = await store.addSubscriber('hooks')
    await store.addSubscriber('tunnel')
    const first = await store.append([newEvent('c1', 1), newEvent('c1', 2), newEvent('c2', 1)])
    for (const subscriber of ['hooks', 'tunnel']) for (const lane of ['c1', 'c2']) await store.cursor(subscriber, lane, start)
    const oldest = first[0]!.createdAt
    expect(sorted(await store.lag())).toEqual([
      { subscriber: 'hooks', pending: 3, oldestCreatedAt: oldest },
      { subscriber: 'tunnel', pending: 3, oldestCreatedAt: oldest },
    ])

    await store.advance([
      { subscriber: 'hooks', connectionId: 'c1', seq: 2 },
      { subscriber: 'hooks', connectionId: 'c2', seq: 1 },
      { subscriber: 'tunnel', connectionId: 'c1', seq: 1 },
    ])
    expect(sorted(await store.lag())).toEqual([{ subscriber: 'tunnel', pending: 2, oldestCreatedAt: first[1]!.createdAt }])

    // after a look that found everything delivered, new events count again; a lane without a
    // cursor yet (its first run has not made it) counts in full
    await store.advance([
      { subscriber: 'tunnel', connectionId: 'c1', seq: 2 },
      { subscriber: 'tunnel', connectionId: 'c2', seq: 1 },
    ])
    expect(await store.lag()).toEqual([])
    const later = await store.append([newEvent('c1', 3), newEvent('c3', 1)])
    await store.advance([{ subscriber: 'tunnel', connectionId: 'c1', seq: 3 }])
    const expected = [
      { subscriber: 'hooks', pending: 2, oldestCreatedAt: later[0]!.createdAt },
      { subscriber: 'tunnel', pending: 1, oldestCreatedAt: later[1]!.createdAt },
    ]
    expect(sorted(await store.lag())).toEqual(expected)

    const restarted = await OutboxStore.open(await databases.open(location))
    expect(sorted(await restarted.lag())).toEqual(expected)
  })

  it('raises each floor to the head once everything was delivered, never above an event still pending', async () => {
    const database = await databases.open()
    const store = await OutboxStore.open(database)
    const start = await store.addSubscriber('hooks')
    const events = await store.append([newEvent('c1', 1), newEvent('c1', 2), newEvent('c1', 3)])
    await store.cursor('hooks', 'c1', start)
    await store.advance([{ subscriber: 'hooks', connectionId: 'c1', seq: 1 }])
    await store.lag()
    expect(await floorOf(database)).toBe(events[0]!.position) // just below the second, still pending
    await store.advance([{ subscriber: 'hooks', connectionId: 'c1', seq: 3 }])
    await store.lag()
    expect(await floorOf(database)).toBe(events[2]!.position)
  })
  it('counts a subscriber too far behind from its lanes, and still finds every lane with work', async () => {
    const store = await OutboxStore.open(await databases.open())
    const start = await store.addSubscriber('slow')
    const lanes = Array.from({ length: 10 }, (_, i) => `lane-${i}`)
    const perLane = Math.ceil((LAG_SCAN_EVENTS + 100) / lanes.length)
    for (let n = 1; n <= perLane; n++) await store.append(lanes.map((lane) => newEvent(lane, n)))
    for (const lane of lanes.slice(1)) await store.cursor('slow', lane, start) // lane-0's first run has not made its cursor
    await store.advance([{ subscriber: 'slow', connectionId: 'lane-1', seq: perLane }])
    const [lag] = await store.lag()
    expect(lag).toMatchObject({ subscriber: 'slow', pending: 8 * perLane }) // lanes 2–9 from their cursors
    expect((await store.connectionsWithWork('slow')).sort()).toEqual(lanes.filter((lane) => lane !== 'lane-1').sort())
  })
})

async function floorOf(database: Parameters<typeof selectRows>[0]): Promise<number> {
  const [row] = await selectRows<{ lag_floor: number | string }>(
    database,
    sql`SELECT lag_floor FROM event_subscribers WHERE name = 'hooks'`,
  )
  return Number(row?.lag_floor)
}

function sorted<T extends { subscriber: string }>(lags: T[]): T[] {
  return [...lags].sort((a, b) => a.subscriber.localeCompare(b.subscriber))
}
