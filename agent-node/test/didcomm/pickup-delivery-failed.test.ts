/**
 * A Pickup v2 `delivery` (Aries RFC 0685) that cannot be sent gives its messages back to the
 * queue. Credo takes the messages of a delivery from the queue (marked `sending`) before it sends
 * it, and they leave the queue only when the wallet confirms them (`messages-received`); a
 * delivery that failed on a socket closing under it left them `sending`, offered to no pickup
 * again until agent-node restarted. A real agent-node and a wallet over WebSocket on loopback:
 * the agent closes the wallet's live socket and sends a text at once, before the close completes,
 * so the text is queued and its delivery fails; the wallet, reopening its channel, still gets it.
 * SQLite only: there the send runs before the close completes (the database calls do not wait for
 * I/O), while PostgreSQL's round trips let the close complete first, and nothing fails.
 */
import { DidCommEventTypes, type DidCommMessageSentEvent, DidCommTransportService, OutboundMessageSendStatus } from '@credo-ts/didcomm'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'

const logger = createLogger('silent')

describe('a delivery to a live session that fails', () => {
  const started = useTestAgentNode('sqlite')

  it('leaves its messages to the next pickup', { timeout: 90_000 }, async () => {
    const { node } = started.agent
    const wallet = await WalletPeer.create({ label: 'closing wallet', logger })
    try {
      const { connectionId } = await connectWallet(node, started.agent.adminUrl, wallet)
      const pickup = node.agent.modules.didcomm.messagePickup
      await expect.poll(() => pickup.getLiveModeSession({ connectionId }), { timeout: 20_000 }).toBeDefined()
      const texts: string[] = []
      wallet.onText((text) => texts.push(String(text.content)))
      const deliveries: OutboundMessageSendStatus[] = []
      node.agent.events.on<DidCommMessageSentEvent>(DidCommEventTypes.DidCommMessageSent, ({ payload }) => {
        if (payload.message.message.type.endsWith('/messagepickup/2.0/delivery')) deliveries.push(payload.status)
      })

      // the live socket starts closing (the close completes a round trip later); the text finds
      // it and is queued, and the live session still names it, so the delivery is sent on it
      const live = node.agent.dependencyManager.resolve(DidCommTransportService).findSessionByConnectionId(connectionId)!
      await live.close()
      await node.agent.modules.didcomm.basicMessages.sendMessage(connectionId, 'sent while the socket closed')

      await expect.poll(() => texts, { timeout: 30_000 }).toContain('sent while the socket closed')
      expect(deliveries[0]).toBe(OutboundMessageSendStatus.Undeliverable) // the case this test is about did happen
    } finally {
      await wallet.stop()
    }
  })
})
