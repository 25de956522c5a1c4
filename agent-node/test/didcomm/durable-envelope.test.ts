/**
 * Durability before a message leaves (`DurableEnvelopeService`): packing starts the sync of the
 * commits made so far and hands the envelope out only once that sync is done, so the encryption
 * and the `fdatasync` run side by side; a failed sync fails the pack. agent-node's agent packs with
 * it (`OrderedPickupModule`). Credo's envelope service, unchanged, opens what it packs.
 */
import { Agent, AgentConfig, AgentContext, ConsoleLogger, DependencyManager, Kms, LogLevel, TypedArrayEncoder } from '@credo-ts/core'
import {
  DidCommBasicMessage,
  type DidCommDocumentService,
  DidCommEnvelopeService,
  DidCommModule,
  DidCommModuleConfig,
} from '@credo-ts/didcomm'
import { agentDependencies, NodeInMemoryKeyManagementStorage } from '@credo-ts/node'
import { describe, expect, it } from 'vitest'
import { DurableEnvelopeService, SYNC_TO_DISK } from '../../src/didcomm/transport/DurableEnvelopeService.ts'
import { OrderedPickupModule } from '../../src/didcomm/transport/OrderedMessageSender.ts'
import type { DatabaseQueueTransportRepository } from '../../src/didcomm/transport/DatabaseQueueTransportRepository.ts'
import { openDatabase } from '../../src/database/index.ts'
import { ParleyKeyManagementService } from '../../src/wallet/kms/index.ts'
import { DrizzleStorageModule } from '../../src/wallet/storage/index.ts'
import { openRecordStore } from '../support/record-store.ts'

type Ed25519Key = Kms.PublicJwk<Kms.Ed25519PublicJwk>

const logger = new ConsoleLogger(LogLevel.off)

/** A context with Parley's KMS, the envelope service, and `sync` as what packing waits for. */
function setUp(sync: () => Promise<void>) {
  const kmsBackend = new ParleyKeyManagementService(new NodeInMemoryKeyManagementStorage())
  const dependencyManager = new DependencyManager()
  const agentContext = new AgentContext({ dependencyManager, contextCorrelationId: 'default' })
  dependencyManager.registerInstance(AgentContext, agentContext)
  dependencyManager.registerInstance(AgentConfig, new AgentConfig({ logger }, agentDependencies))
  dependencyManager.registerInstance(DidCommModuleConfig, new DidCommModuleConfig({}))
  dependencyManager.registerInstance(Kms.KeyManagementModuleConfig, new Kms.KeyManagementModuleConfig({ backends: [kmsBackend] }))
  dependencyManager.registerInstance(SYNC_TO_DISK, sync)
  const kms = agentContext.resolve(Kms.KeyManagementApi)
  // which recipient key is ours: normally from DID records in storage
  const ourKeys = new Map<string, Ed25519Key>()
  const extractOurRecipientKeyWithKeyId = async (_context: AgentContext, recipient: { header: { kid: string } }) =>
    ourKeys.get(recipient.header.kid) ?? null
  const durable = new DurableEnvelopeService(logger, {} as DidCommDocumentService)
  const plain = new DidCommEnvelopeService(logger, {} as DidCommDocumentService)
  for (const service of [durable, plain]) Object.assign(service, { extractOurRecipientKeyWithKeyId })
  const createKey = async (): Promise<Ed25519Key> => {
    const { keyId, publicJwk } = await kms.createKey({ type: { kty: 'OKP', crv: 'Ed25519' } })
    const key = Kms.PublicJwk.fromPublicJwk(publicJwk) as Ed25519Key
    key.keyId = keyId
    ourKeys.set(TypedArrayEncoder.toBase58(key.publicKey.publicKey), key)
    return key
  }
  return { agentContext, kmsBackend, durable, plain, createKey }
}

describe('DurableEnvelopeService', () => {
  it('encrypts while the sync runs and hands the envelope out only once the sync is done', async () => {
    let syncs = 0
    let syncDone: (() => void) | undefined
    const { agentContext, kmsBackend, durable, plain, createKey } = setUp(() => {
      syncs++
      return new Promise<void>((resolve) => {
        syncDone = resolve
      })
    })
    const [sender, recipient] = [await createKey(), await createKey()]
    let encryptions = 0
    const encrypt = kmsBackend.encrypt.bind(kmsBackend)
    kmsBackend.encrypt = (...args) => {
      encryptions++
      return encrypt(...args)
    }

    let handedOut = false
    const packed = durable
      .packMessage(agentContext, new DidCommBasicMessage({ content: 'after the disk' }), {
        recipientKeys: [recipient],
        routingKeys: [],
        senderKey: sender,
      })
      .then((envelope) => {
        handedOut = true
        return envelope
      })
    expect(syncs).toBe(1) // started with the packing, not after it
    await expect.poll(() => encryptions).toBeGreaterThan(0)
    await new Promise((resolve) => setImmediate(resolve))
    expect(handedOut).toBe(false)

    syncDone?.()
    const { plaintextMessage } = await plain.unpackMessage(agentContext, await packed)
    expect(plaintextMessage.content).toBe('after the disk')
  })

  it('fails the pack when the sync fails', async () => {
    const { agentContext, durable, createKey } = setUp(() => Promise.reject(new Error('EIO: the disk refused the sync')))
    const [sender, recipient] = [await createKey(), await createKey()]
    await expect(
      durable.packMessage(agentContext, new DidCommBasicMessage({ content: 'never sent' }), {
        recipientKeys: [recipient],
        routingKeys: [],
        senderKey: sender,
      }),
    ).rejects.toThrow('EIO')
  })

  it('is the envelope service of an agent with OrderedPickupModule', async () => {
    const database = await openDatabase(':memory:')
    try {
      const agent = new Agent({
        dependencies: agentDependencies,
        modules: {
          storage: new DrizzleStorageModule(await openRecordStore(database)),
          didcomm: new DidCommModule(),
          // only registered here, never read: the agent is not started
          pickupOrder: new OrderedPickupModule({} as DatabaseQueueTransportRepository),
        },
      })
      expect(agent.dependencyManager.resolve(DidCommEnvelopeService)).toBeInstanceOf(DurableEnvelopeService)
    } finally {
      await database.close()
    }
  })
})
