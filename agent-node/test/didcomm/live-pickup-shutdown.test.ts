/**
 * A wallet's live pickup channel (`LivePickupChannel`: Pickup v2 live mode, reopened whenever the
 * wallet's socket to the agent closes) ends with the wallet's agent. Shutting a Credo agent down
 * closes its sockets, and each close asks the channel to reopen; on a stopped agent every attempt
 * fails, and it used to be retried every 500 ms for as long as the process lived (seen as 50
 * shut-down benchmark wallets burning most of a core). A real agent-node and a real wallet over
 * WebSocket on loopback; the wallet's agent is shut down without `WalletPeer.stop`.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'

const logger = createLogger('silent')

describe('a live pickup channel whose agent shut down', () => {
  const started = useTestAgentNode('sqlite')

  it('is not reopened any more', { timeout: 60_000 }, async () => {
    const { node } = started.agent
    const wallet = await WalletPeer.create({ label: 'shut-down wallet', logger })
    try {
      const { connectionId } = await connectWallet(node, started.agent.adminUrl, wallet)
      await expect
        .poll(() => node.agent.modules.didcomm.messagePickup.getLiveModeSession({ connectionId }), { timeout: 20_000 })
        .toBeDefined()
      const openings = vi.spyOn(wallet.agent.modules.didcomm.messagePickup, 'setLiveDeliveryMode')

      // the wallet's agent stops (its socket to the agent closes) without the channel being told
      await wallet.agent.shutdown()
      await sleep(1_000) // two retry periods: an attempt made while shutting down has had its one retry
      const afterShutdown = openings.mock.calls.length
      await sleep(2_000)
      expect(openings.mock.calls.length).toBe(afterShutdown)
    } finally {
      await wallet.stop().catch(() => undefined)
    }
  })
})
