/**
 * What waits in the pickup queue reaches a wallet in live mode (Pickup v2, Aries RFC 0685), which
 * asks for nothing more (issue 17: a reply a killed instance had taken from the queue and not
 * delivered, released to the survivor, was never answered). A real agent-node and a Credo wallet:
 * the wallet's live channel is replaced by a second socket of the same wallet (Credo keeps one
 * WebSocket session per connection and ends the live session with the replaced one), then a text
 * packed for the wallet is put in the queue by another instance's queue on the same database (no
 * notification reaches this one). The agent delivers it to the live session at its next round.
 */
import { DidsApi, getPublicJwkFromVerificationMethod, Kms } from '@credo-ts/core'
import {
  DidCommBasicMessage,
  DidCommDocumentService,
  DidCommEnvelopeService,
  DidCommTransportService,
  DidCommWsOutboundTransport,
} from '@credo-ts/didcomm'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/database/index.ts'
import type { DidcommAgent } from '../../src/didcomm/agent.ts'
import { DatabaseQueueTransportRepository } from '../../src/didcomm/transport/DatabaseQueueTransportRepository.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'
import { dialects } from '../support/temp-databases.ts'

const logger = createLogger('silent')

/**
 * Packs `content` for the peer of `connectionId` (as Credo's sender packs for the queue) and puts
 * it in `queue`, another instance's queue on the agent's database.
 */
async function queueText(
  agent: DidcommAgent,
  queue: DatabaseQueueTransportRepository,
  connectionId: string,
  content: string,
): Promise<string> {
  const connection = await agent.modules.didcomm.connections.getById(connectionId)
  const [service] = await agent.dependencyManager
    .resolve(DidCommDocumentService)
    .resolveServicesFromDid(agent.context, connection.theirDid!)
  const { didDocument, keys } = await agent.context.resolve(DidsApi).resolveCreatedDidDocumentWithKeys(connection.did!)
  const [authentication] = didDocument.authentication!
  const method = typeof authentication === 'string' ? didDocument.dereferenceVerificationMethod(authentication) : authentication!
  const senderKey = getPublicJwkFromVerificationMethod(method) as Kms.PublicJwk<Kms.Ed25519PublicJwk>
  senderKey.keyId = keys!.find((key) => method.id.endsWith(key.didDocumentRelativeKeyId))!.kmsKeyId
  const message = new DidCommBasicMessage({ content })
  const payload = await agent.dependencyManager
    .resolve(DidCommEnvelopeService)
    .packMessage(agent.context, message, { recipientKeys: service!.recipientKeys, routingKeys: [], senderKey })
  await queue.addMessage(agent.context, {
    connectionId,
    recipientDids: [],
    payload,
  })
  return message.id
}

describe.each(dialects)('a wallet in live pickup mode on %s', (dialect) => {
  // a round every second
  const started = useTestAgentNode(dialect, { LEASE_TTL_SECONDS: '3' })

  it('gets what is queued for it after a second socket of its replaced the live one', { timeout: 90_000 }, async () => {
    const { node } = started.agent
    const wallet = await WalletPeer.create({ label: 'live wallet', logger })
    try {
      const { connectionId, walletConnectionId } = await connectWallet(node, started.agent.adminUrl, wallet)
      const pickup = node.agent.modules.didcomm.messagePickup
      await expect.poll(() => pickup.getLiveModeSession({ connectionId }), { timeout: 20_000 }).toBeDefined()
      const transports = node.agent.dependencyManager.resolve(DidCommTransportService)
      const liveSocket = transports.findSessionByConnectionId(connectionId)!.id

      // the wallet opens a second socket (its first one stays open, in live mode) and talks on it
      const outbound = wallet.agent.modules.didcomm.outboundTransports.find((t) => t instanceof DidCommWsOutboundTransport)!
      ;(outbound as unknown as { transportTable: Map<string, unknown> }).transportTable.clear()
      await wallet.sendText(walletConnectionId, 'from a second socket')
      await expect.poll(() => transports.findSessionByConnectionId(connectionId)?.id, { timeout: 20_000 }).not.toBe(liveSocket)

      const texts: string[] = []
      wallet.onText((text) => texts.push(String(text.content)))
      const database = await openDatabase(started.agent.config.databaseUrl ?? `${started.agent.config.dataDir}/agent.sqlite`)
      try {
        const otherInstance = await DatabaseQueueTransportRepository.open(database, 'another-instance')
        await queueText(node.agent, otherInstance, connectionId, 'queued by another instance')
        await expect.poll(() => texts, { timeout: 20_000 }).toContain('queued by another instance')
      } finally {
        await database.close()
      }
    } finally {
      await wallet.stop()
    }
  })
})
