/**
 * A message agent-node sends on a new connection while the wallet's DID Exchange socket is still
 * open leaves from our new peer DID, not from the invitation's key the request was addressed to
 * (`didcomm/exchange-sessions.ts`), so the wallet finds its connection and takes it. Real
 * agent-node, real Credo wallet (no endpoint of its own: it receives by live pickup) over
 * WebSocket on loopback, connecting through the public-DID invitation.
 */
import {
  type DidCommMessageSentEvent,
  DidCommDidExchangeResponseMessage,
  DidCommEventTypes,
  OutboundMessageSendStatus,
} from '@credo-ts/didcomm'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { useTestAgentNode } from '../support/agent-node.ts'

describe('a message sent right after the DID Exchange response', () => {
  const started = useTestAgentNode('sqlite')

  it('reaches the wallet, sent from the connection’s own key rather than on the request’s socket', { timeout: 60_000 }, async () => {
    const { node, adminUrl } = started.agent
    const wallet = await WalletPeer.create({ label: 'early wallet', logger: createLogger('silent') })
    const statuses: OutboundMessageSendStatus[] = []
    try {
      // The moment the response has left on the request's socket, before the wallet can answer it.
      const early = new Promise<void>((resolve, reject) => {
        const onSent = ({ payload }: DidCommMessageSentEvent) => {
          if (!(payload.message.message instanceof DidCommDidExchangeResponseMessage)) return
          node.agent.events.off(DidCommEventTypes.DidCommMessageSent, onSent)
          const connectionId = payload.message.connection!.id
          const watch = ({ payload: sent }: DidCommMessageSentEvent) => {
            if (sent.message.connection?.id === connectionId && sent.message.message.type.includes('basicmessage'))
              statuses.push(sent.status)
          }
          node.agent.events.on(DidCommEventTypes.DidCommMessageSent, watch)
          node.agent.modules.didcomm.basicMessages
            .sendMessage(connectionId, 'sent before the wallet completed')
            .then(() => resolve(), reject)
        }
        node.agent.events.on(DidCommEventTypes.DidCommMessageSent, onSent)
      })
      const arrived = wallet.nextText((text) => text.content === 'sent before the wallet completed', 30_000)
      const { url } = (await (await fetch(`${adminUrl}/v1/invitation`)).json()) as { url: string }
      await wallet.connect(url)
      await early
      await expect(arrived).resolves.toMatchObject({ content: 'sent before the wallet completed' })
      expect(statuses).not.toContain(OutboundMessageSendStatus.SentToSession)
    } finally {
      await wallet.stop()
    }
  })
})
