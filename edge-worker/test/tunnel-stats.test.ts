/**
 * The tunnel gateway's counters, asked for with a `stats-request` frame: the `stats` answer
 * carries the request's id and counts acknowledged events, rejected frames and connections.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StatsFrame } from '@parley/shared/tunnel'
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
