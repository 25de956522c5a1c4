/**
 * Messages to a wallet keep their order across the pickup queue (`OrderedMessageSender`,
 * `pickup-relay.ts`): a message queued while the wallet had no session is not overtaken by one
 * sent once the wallet's live pickup session is back. A real agent-node and a Credo wallet: the
 * agent loses its session of the wallet (as when the DID Exchange socket closes), a text is
 * queued, and a second text is sent the moment the wallet's live session is saved, before the
 * wallet could ask for what waits. The wallet reads them in the order they were sent. The same
 * holds for texts sent while the delivery of a queued one is being built and packed: the queued
 * text was taken from the queue, so only the queue's record of a delivery in progress keeps the
 * later ones behind it, and they join the queue in the order they were sent even when the first
 * takes longer to pack.
 */
import {
  DidCommBasicMessage,
  DidCommMessagePickupEventTypes,
  type DidCommMessagePickupLiveSessionSavedEvent,
  DidCommEnvelopeService,
  DidCommModuleConfig,
  DidCommTransportService,
} from '@credo-ts/didcomm'
import { setTimeout as delay } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { sendOnConnection } from '../../src/didcomm/sendOnConnection.ts'
import type { DatabaseQueueTransportRepository } from '../../src/didcomm/transport/DatabaseQueueTransportRepository.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'

const logger = createLogger('silent')

describe('the pickup queue and a live session', () => {
  const started = useTestAgentNode('sqlite')

  it('a text queued while the wallet had no session reaches it before one sent after its live session came back', {
    timeout: 60_000,
  }, async () => {
    const { node } = started.agent
    const context = node.agent.context
    const wallet = await WalletPeer.create({ label: 'order wallet', logger })
    try {
      const { connectionId, walletConnectionId } = await connectWallet(node, started.agent.adminUrl, wallet)
      const texts: string[] = []
      wallet.onText((text) => {
        if (text.connectionId === walletConnectionId) texts.push(text.content)
      })

      // the agent's side of the wallet's socket is gone: the first text waits in the queue
      const transports = node.agent.dependencyManager.resolve(DidCommTransportService)
      await expect.poll(() => transports.findSessionByConnectionId(connectionId)).toBeDefined()
      transports.removeSession(transports.findSessionByConnectionId(connectionId)!)
      await sendOnConnection(context, connectionId, new DidCommBasicMessage({ content: 'first' }))
      const queue = node.agent.dependencyManager.resolve(DidCommModuleConfig).queueTransportRepository as DatabaseQueueTransportRepository
      expect(await queue.getAvailableMessageCount(context, { connectionId })).toBe(1)

      // the second is sent as soon as the wallet's live session is saved
      const secondSent = new Promise<void>((resolve, reject) => {
        const listener = ({ payload }: DidCommMessagePickupLiveSessionSavedEvent) => {
          if (payload.session.connectionId !== connectionId) return
          node.agent.events.off(DidCommMessagePickupEventTypes.LiveSessionSaved, listener)
          sendOnConnection(context, connectionId, new DidCommBasicMessage({ content: 'second' })).then(resolve, reject)
        }
        node.agent.events.on(DidCommMessagePickupEventTypes.LiveSessionSaved, listener)
      })
      await wallet.agent.modules.didcomm.messagePickup.setLiveDeliveryMode({
        connectionId: walletConnectionId,
        protocolVersion: 'v2',
        liveDelivery: true,
      })
      await secondSent

      await expect.poll(() => texts.length, { timeout: 20_000 }).toBe(2)
      expect(texts).toEqual(['first', 'second'])
      expect(await queue.getAvailableMessageCount(context, { connectionId })).toBe(0)

      // two texts sent once the queued one is taken for a delivery, and before that delivery is
      // sent; the first of them takes longer to pack than the second
      transports.removeSession(transports.findSessionByConnectionId(connectionId)!)
      await sendOnConnection(context, connectionId, new DidCommBasicMessage({ content: 'third' }))
      const connection = await node.agent.modules.didcomm.connections.getById(connectionId)
      const envelopes = node.agent.dependencyManager.resolve(DidCommEnvelopeService)
      const pack = envelopes.packMessage.bind(envelopes)
      envelopes.packMessage = async (agentContext, payload, keys) => {
        if (payload instanceof DidCommBasicMessage && payload.content === 'fourth') await delay(100)
        return pack(agentContext, payload, keys)
      }
      const take = queue.takeFromQueue.bind(queue)
      let laterSent = false
      let waitingAtTake: boolean | undefined
      queue.takeFromQueue = async (agentContext, options) => {
        const taken = await take(agentContext, options)
        if (taken.length > 0 && !laterSent) {
          laterSent = true
          waitingAtTake = queue.hasWaiting(connectionId)
          await Promise.all(
            ['fourth', 'fifth'].map((content) => sendOnConnection(context, connection, new DidCommBasicMessage({ content }))),
          )
        }
        return taken
      }
      try {
        await wallet.agent.modules.didcomm.messagePickup.setLiveDeliveryMode({
          connectionId: walletConnectionId,
          protocolVersion: 'v2',
          liveDelivery: true,
        })
        await expect.poll(() => texts.length, { timeout: 20_000 }).toBe(5)
      } finally {
        queue.takeFromQueue = take
        envelopes.packMessage = pack
      }
      expect(laterSent).toBe(true)
      // nothing counted as waiting once the queued text was taken: only its delivery held the later ones back
      expect(waitingAtTake).toBe(false)
      expect(texts).toEqual(['first', 'second', 'third', 'fourth', 'fifth'])
    } finally {
      await wallet.stop()
    }
  })
})
