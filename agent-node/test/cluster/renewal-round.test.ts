/**
 * The cluster's renewal round (`cluster/`) on each dialect: on PostgreSQL it looks in the database
 * for delivery lanes with work another instance appended (`DeliveryEngine.poke`); on SQLite, where
 * the process is alone, it does not read every lane of every subscriber.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { InboundInbox } from '../../src/didcomm/inbox/InboundInbox.ts'
import { OutboxStore } from '../../src/events/outbox/store.ts'
import { useTestAgentNode } from '../support/agent-node.ts'

describe.each([
  { dialect: 'sqlite' as const, looks: false },
  { dialect: 'postgres' as const, looks: true },
])('the renewal round on $dialect', ({ dialect, looks }) => {
  // a round every third of a second
  const node = useTestAgentNode(dialect, { LEASE_TTL_SECONDS: '1' })
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it(`${looks ? 'looks' : 'does not look'} in the database for lanes with work`, { timeout: 30_000 }, async () => {
    expect(node.agent.node.adminPort).toBeGreaterThan(0) // started
    const lanesRead = vi.spyOn(OutboxStore.prototype, 'connectionsWithWork')
    const rounds = vi.spyOn(InboundInbox.prototype, 'adopt') // the round's first listener
    // two rounds begun: the first has run every listener
    await expect.poll(() => rounds.mock.calls.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2)
    if (looks) expect(lanesRead).toHaveBeenCalled()
    else expect(lanesRead).not.toHaveBeenCalled()
  })
})
