/**
 * Leases (`src/cluster/`) on both dialects, two instances on one database (two `Database`
 * handles, as two processes have): one holder at a time, renewal, takeover after expiry or
 * release, `withLease` serialising, and inbox adoption of a dead instance's envelopes.
 */
import { describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { Cluster } from '../../src/cluster/Cluster.ts'
import { instanceLeaseName, LeaseStore } from '../../src/cluster/leases.ts'
import { execute, selectRows } from '../../src/database/dialect.ts'
import { InboundInbox } from '../../src/didcomm/inbox/InboundInbox.ts'
import { createLogger } from '../../src/logging/index.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const logger = createLogger('silent')

describe.each(dialects)('leases on %s', (dialect) => {
  const databases = useTempDatabases('parley-leases-', dialect)

  it('gives a lease to one holder at a time, renews it, and hands it over once expired or released', async () => {
    const a = await LeaseStore.open(await databases.open())
    const b = await LeaseStore.open(await databases.open())
    const now = 1_000_000
    expect(await a.claim('delivery:tunnel', 'A', 15_000, now)).toBe(true)
    expect(await b.claim('delivery:tunnel', 'B', 15_000, now + 1)).toBe(false)
    expect(await a.claim('delivery:tunnel', 'A', 15_000, now + 5_000)).toBe(true) // renewal
    expect(await b.claim('delivery:tunnel', 'B', 15_000, now + 19_000)).toBe(false) // renewed until now + 20 s
    expect(await a.holder('delivery:tunnel', now + 19_000)).toBe('A')
    expect(await b.claim('delivery:tunnel', 'B', 15_000, now + 20_001)).toBe(true) // expired: taken over
    expect(await a.claim('delivery:tunnel', 'A', 15_000, now + 20_002)).toBe(false)
    await b.release('delivery:tunnel', 'B')
    expect(await a.claim('delivery:tunnel', 'A', 15_000, now + 20_003)).toBe(true)
    await b.release('delivery:tunnel', 'B') // not B's: nothing happens
    expect(await a.holder('delivery:tunnel', now + 20_004)).toBe('A')
  })

  it('lets exactly one of many concurrent claimers win', async () => {
    const stores = await Promise.all(Array.from({ length: 6 }, async () => LeaseStore.open(await databases.open())))
    const won = await Promise.all(stores.map((store, i) => store.claim('recovery', `I${i}`, 15_000)))
    expect(won.filter(Boolean)).toHaveLength(1)
  })

  it('moves a wanted lease to a standby instance when its holder stops, and back when that one stops', async () => {
    const location = databases.path
    const events: string[] = []
    const handlers = (name: string) => ({ gained: () => void events.push(`${name} gained`), lost: () => void events.push(`${name} lost`) })
    const a = await Cluster.open(await databases.open(location), { instanceId: 'A', ttlMs: 300, logger })
    const b = await Cluster.open(await databases.open(location), { instanceId: 'B', ttlMs: 300, logger })
    try {
      await a.want('delivery:webhook', handlers('A'))
      await b.want('delivery:webhook', handlers('B'))
      expect(a.holds('delivery:webhook')).toBe(true)
      expect(b.holds('delivery:webhook')).toBe(false)
      await a.stop() // releases: B takes over at its next round (every 100 ms)
      await expect.poll(() => b.holds('delivery:webhook'), { timeout: 5_000 }).toBe(true)
      expect(events).toEqual(['A gained', 'B gained'])
    } finally {
      await a.stop()
      await b.stop()
    }
  })

  it('takes over a lease whose holder died (stopped renewing) once it expired', async () => {
    const location = databases.path
    const dead = await LeaseStore.open(await databases.open(location))
    expect(await dead.claim('delivery:tunnel', 'dead', 400)).toBe(true)
    const live = await Cluster.open(await databases.open(location), { instanceId: 'live', ttlMs: 300, logger })
    try {
      await live.want('delivery:tunnel', { gained: () => {}, lost: () => {} })
      if (dialect === 'postgres') expect(live.holds('delivery:tunnel')).toBe(false) // SQLite: one process, dropped at open
      await expect.poll(() => live.holds('delivery:tunnel'), { timeout: 5_000 }).toBe(true)
    } finally {
      await live.stop()
    }
  })

  it('runs withLease tasks of two instances one after the other', async () => {
    const location = databases.path
    const a = await Cluster.open(await databases.open(location), { instanceId: 'A', ttlMs: 5_000, logger })
    const b = await Cluster.open(await databases.open(location), { instanceId: 'B', ttlMs: 5_000, logger })
    try {
      const log: string[] = []
      const task = (name: string) => async () => {
        log.push(`${name} start`)
        await new Promise((resolve) => setTimeout(resolve, 300))
        log.push(`${name} end`)
      }
      await Promise.all([a.withLease('recovery', task('A')), b.withLease('recovery', task('B'))])
      expect(log).toHaveLength(4)
      expect(log[1]).toBe(`${log[0]!.split(' ')[0]} end`) // the first finished before the second started
    } finally {
      await a.stop()
      await b.stop()
    }
  })

  it("adopts a dead instance's inbox envelopes once, never a live one's", async () => {
    const location = databases.path
    const database = await databases.open(location)
    const leases = await LeaseStore.open(database)
    for (const live of ['survivor', 'another', 'alive']) await leases.claim(instanceLeaseName(live), live, 60_000)
    const survivor = await InboundInbox.open(database, logger, 'survivor')
    const another = await InboundInbox.open(await databases.open(location), logger, 'another')
    await leases.claim(instanceLeaseName('dead'), 'dead', 1) // expires at once
    const envelope = JSON.stringify({ protected: 'x', iv: 'x', ciphertext: 'x', tag: 'x' })
    for (const [id, owner, at] of [
      ['e1', 'dead', 2],
      ['e2', 'alive', 1],
      ['e3', 'dead', 1],
      ['e4', null, 3], // stored before instances had ids
    ] as const)
      await execute(
        database,
        sql`INSERT INTO didcomm_inbox (id, envelope, received_at, instance_id) VALUES (${id}, ${envelope}, ${at}, ${owner})`,
      )
    await new Promise((resolve) => setTimeout(resolve, 5))
    const [mine, theirs] = await Promise.all([survivor.adopt(), another.adopt()]) // two live instances racing
    expect(mine + theirs).toBe(3)
    expect(survivor.backlog).toBe(mine)
    expect(another.backlog).toBe(theirs)
    const owners = await selectRows<{ id: string; instance_id: string }>(
      database,
      sql`SELECT id, instance_id FROM didcomm_inbox ORDER BY id`,
    )
    expect(owners.find((row) => row.id === 'e2')!.instance_id).toBe('alive')
    for (const id of ['e1', 'e3', 'e4']) expect(['survivor', 'another']).toContain(owners.find((row) => row.id === id)!.instance_id)
    expect(await survivor.adopt()).toBe(0) // nothing left to take
  })
})
