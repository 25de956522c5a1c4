/**
 * Unit test of `checkReadiness`'s outbox check: a subscriber named in `ignoredSubscribers` (the
 * presentation callbacks, whose receivers are the controller's URLs) never makes agent-node
 * unready; any other one behind the limit does. The outbox is a stand-in answering `lag`.
 */
import { describe, expect, it } from 'vitest'
import type { OutboxStore } from '../../src/events/outbox/store.ts'
import { checkReadiness } from '../../src/observability/readiness.ts'

const anHourAgo = Date.now() - 3_600_000
const outboxBehind = (subscriber: string) =>
  ({ lag: async () => [{ subscriber, pending: 1, oldestCreatedAt: anHourAgo }] }) as unknown as OutboxStore

describe('readiness and ignored subscribers', () => {
  it('does not count the lag of an ignored subscriber', async () => {
    const readiness = await checkReadiness({
      outbox: outboxBehind('presentation-callbacks'),
      maxLagSeconds: 60,
      ignoredSubscribers: ['presentation-callbacks'],
    })
    expect(readiness.ready).toBe(true)
  })

  it('counts every other subscriber', async () => {
    const readiness = await checkReadiness({
      outbox: outboxBehind('webhook:events-base-url'),
      maxLagSeconds: 60,
      ignoredSubscribers: ['presentation-callbacks'],
    })
    expect(readiness).toMatchObject({ ready: false, checks: { outbox: { ok: false, subscriber: 'webhook:events-base-url' } } })
  })
})
