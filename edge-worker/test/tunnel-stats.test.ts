/**
 * The tunnel gateway's counters, asked for with a `stats-request` frame: the `stats` answer
 * carries the request's id and counts acknowledged events, rejected frames and connections.
 * Counts are kept in memory and written together within `WRITE_BEHIND_MS`.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StatsFrame } from '@parley/shared/tunnel'
import { openDatabase } from '../src/storage/index.ts'
import { Counters } from '../src/tunnel-gateway/counters.ts'
import { WRITE_BEHIND_MS, WriteBehind } from '../src/tunnel-gateway/write-behind.ts'
import { migrations } from '../src/tunnel-gateway/migrations.ts'
import { schema } from '../src/tunnel-gateway/schema.ts'
import { messageState, TestAgent } from './support/agent.ts'

/** Sends a `stats-request` and waits for its answer. */
async function stats(agent: TestAgent): Promise<StatsFrame['counters']> {
  const id = crypto.randomUUID()
  agent.sendRaw(JSON.stringify({ kind: 'stats-request', id }))
  const frame = (await agent.next((f) => f.kind === 'stats' && f.id === id)) as StatsFrame
  return frame.counters
}

describe('tunnel gateway counters', () => {
  let agent: TestAgent
  beforeEach(async () => {
    agent = await TestAgent.connect()
  })
  afterEach(async () => {
    await agent.close()
  })

  it('answers a stats-request with its counters, which count acknowledged events and rejected frames', async () => {
    const before = await stats(agent)
    expect(before.agent_connections).toBeGreaterThanOrEqual(1)
    const frame = agent.sendEvent(messageState(crypto.randomUUID()), 1)
    await agent.acks(frame.id)
    agent.sendRaw('{"kind":"event","id":"not-a-uuid"}')
    // workerd may hand the gateway a later frame of the socket first (seen: the stats-request
    // answered before the rejected frame was counted), so ask until the rejection shows
    await expect.poll(async () => (await stats(agent)).frames_rejected).toBe((before.frames_rejected ?? 0) + 1)
    const after = await stats(agent)
    expect(after.events_acknowledged).toBe((before.events_acknowledged ?? 0) + 1)
    expect(after.frames_rejected).toBe((before.frames_rejected ?? 0) + 1)
    expect(agent.invalid).toEqual([])
  })
})

describe('Counters', () => {
  /** A gateway object of its own (not the tunnel's), so no other test's counts are in its table. */
  const ownGateway = () => env.TUNNEL_GATEWAY.get(env.TUNNEL_GATEWAY.idFromName(`counters-${crypto.randomUUID()}`))

  it('reads counts at once and writes them all together on flush, adding to what is stored', async () => {
    await runInDurableObject(ownGateway(), async (_instance, state) => {
      const db = openDatabase(state, schema, migrations)
      const stored = () => state.storage.sql.exec('SELECT name, value FROM counters ORDER BY name').toArray()
      const counters = new Counters(db, new WriteBehind())
      counters.count('events_acknowledged')
      counters.count('events_acknowledged')
      counters.count('frames_rejected')
      expect(counters.read()).toEqual({ events_acknowledged: 2, frames_rejected: 1 })
      expect(stored()).toEqual([])

      counters.flush()
      expect(stored()).toEqual([
        { name: 'events_acknowledged', value: 2 },
        { name: 'frames_rejected', value: 1 },
      ])
      counters.count('events_acknowledged')
      expect(counters.read()).toEqual({ events_acknowledged: 3, frames_rejected: 1 })
      counters.flush()
      counters.flush()
      expect(stored()).toContainEqual({ name: 'events_acknowledged', value: 3 })
    })
  })

  it('writes counts on its own within WRITE_BEHIND_MS', async () => {
    await runInDurableObject(ownGateway(), async (_instance, state) => {
      const counters = new Counters(openDatabase(state, schema, migrations), new WriteBehind())
      counters.count('commands_queued')
      await expect
        .poll(() => state.storage.sql.exec('SELECT value FROM counters WHERE name = ?', 'commands_queued').toArray(), {
          timeout: WRITE_BEHIND_MS + 4_000,
        })
        .toEqual([{ value: 1 }])
    })
  })
})
