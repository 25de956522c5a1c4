/**
 * A Pickup v2 `delivery` (Aries RFC 0685) that cannot be sent gives its messages back to the
 * queue. Credo takes the messages of a delivery from the queue (marked `sending`) before it sends
 * it, and they leave the queue only when the wallet confirms them (`messages-received`); a
 * delivery that failed on a socket closing under it left them `sending`, offered to no pickup
 * again until agent-node restarted. A real agent-node and a wallet over WebSocket on loopback:
 * the wallet stops reading its live socket (as a phone whose app is frozen), so the agent's close
 * of it stays half done: the live session still names a socket that takes nothing. A text sent
 * then is queued and its delivery fails. Once the wallet reads again, the close completes, the
 * wallet reopens its channel and picks up: it still gets the text.
 */
import {
  DidCommEventTypes,
  type DidCommMessageSentEvent,
  DidCommTransportService,
  DidCommWsOutboundTransport,
  OutboundMessageSendStatus,
} from '@credo-ts/didcomm'
import { describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'
import { dialects } from '../support/temp-databases.ts'

const logger = createLogger('silent')

describe.each(dialects)('a delivery to a live session that fails on %s', (dialect) => {
  const started = useTestAgentNode(dialect)

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

      // the wallet reads nothing more on its live socket, and the agent starts closing it: the
      // close waits for the wallet's answer, and the live session still names the socket
      const outbound = wallet.agent.modules.didcomm.outboundTransports.find((t) => t instanceof DidCommWsOutboundTransport)!
      const [walletSocket] = (outbound as unknown as { transportTable: Map<string, WebSocket> }).transportTable.values()
      walletSocket!.pause()
      const live = node.agent.dependencyManager.resolve(DidCommTransportService).findSessionByConnectionId(connectionId)!
      await live.close()
      await node.agent.modules.didcomm.basicMessages.sendMessage(connectionId, 'sent while the socket closed')
      await expect.poll(() => deliveries, { timeout: 20_000 }).toContain(OutboundMessageSendStatus.Undeliverable)

      walletSocket!.resume() // the close completes; the wallet reopens its channel and picks up
      await expect.poll(() => texts, { timeout: 30_000 }).toContain('sent while the socket closed')
    } finally {
      await wallet.stop()
    }
  })
})
