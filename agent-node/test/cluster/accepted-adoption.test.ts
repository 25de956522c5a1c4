/**
 * A message another instance accepted (`created`, with its body) and died before sending is sent
 * by a live instance at its next round, under its own id, and recorded as that instance's
 * (`MessageService.resendAccepted`, `cluster/`). Real agent-node, real Credo wallet; the dead
 * instance's record is written straight to storage, as that instance left it.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { SentMessageRecord, sentMessageRepository } from '../../src/messaging/SentMessageRecord.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'
import { dialects } from '../support/temp-databases.ts'

describe.each(dialects)('accepted messages of a dead instance on %s', (dialect) => {
  const started = useTestAgentNode(dialect, { INSTANCE_ID: 'survivor', LEASE_TTL_SECONDS: '1' })

  it('are sent by the live instance under their own id', { timeout: 60_000 }, async () => {
    const { agent } = started
    const wallet = await WalletPeer.create({ label: 'adoption wallet', logger: createLogger('silent') })
    try {
      const { connectionId } = await connectWallet(agent.node, agent.adminUrl, wallet)
      const context = agent.node.agent.context
      const id = randomUUID()
      const arrived = wallet.nextText((text) => text.id === id, 30_000)
      await sentMessageRepository(context).save(
        context,
        new SentMessageRecord({
          id,
          connectionId,
          state: 'created',
          body: { type: 'text', connectionId, content: 'left behind' },
          instanceId: 'dead-instance',
        }),
      )
      expect((await arrived).content).toBe('left behind')
      await expect
        .poll(async () => (await sentMessageRepository(context).getById(context, id)).state, { timeout: 10_000 })
        .not.toBe('created')
      expect((await sentMessageRepository(context).getById(context, id)).instanceId).toBe('survivor')
    } finally {
      await wallet.stop()
    }
  })
})
