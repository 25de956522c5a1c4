/**
 * Durability before a message leaves (`DurableEnvelopeService`): packing starts the sync of the
 * commits made so far and hands the envelope out only once that sync is done, so the encryption
 * and the `fdatasync` run side by side; a failed sync fails the pack. agent-node's agent packs with
 * it (`OrderedPickupModule`). Credo's envelope service, unchanged, opens what it packs, and it
 * opens what Credo's packs, refusing what Credo refuses. Each peer key is converted to X25519
 * once, not on every message packed or opened, and the KMS backend is called without Credo's
 * `KeyManagementApi` (whose validation of each call's options costs more than the call).
 */
import {
  Agent,
  AgentConfig,
  AgentContext,
  ConsoleLogger,
  DependencyManager,
  JsonEncoder,
  Kms,
  LogLevel,
  TypedArrayEncoder,
} from '@credo-ts/core'
import {
  DidCommBasicMessage,
  type DidCommDocumentService,
  DidCommEnvelopeService,
  DidCommModule,
  DidCommModuleConfig,
} from '@credo-ts/didcomm'
import { agentDependencies, NodeInMemoryKeyManagementStorage } from '@credo-ts/node'
import { describe, expect, it, vi } from 'vitest'
import { type Ed25519Key, x25519Of } from '../../src/didcomm/transport/agreement-keys.ts'
import { DurableEnvelopeService, SYNC_TO_DISK } from '../../src/didcomm/transport/DurableEnvelopeService.ts'
import { OrderedPickupModule } from '../../src/didcomm/transport/OrderedMessageSender.ts'
import type { DatabaseQueueTransportRepository } from '../../src/didcomm/transport/DatabaseQueueTransportRepository.ts'
import { openDatabase } from '../../src/database/index.ts'
import { ParleyKeyManagementService } from '../../src/wallet/kms/index.ts'
import { DrizzleStorageModule } from '../../src/wallet/storage/index.ts'
import { openRecordStore } from '../support/record-store.ts'

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
  /** A new key in the KMS; `ours`: the recipient-key lookup knows it (as a DID of ours would). */
  const createKey = async ({ ours = true } = {}): Promise<Ed25519Key> => {
    const { keyId, publicJwk } = await kms.createKey({ type: { kty: 'OKP', crv: 'Ed25519' } })
    const key = Kms.PublicJwk.fromPublicJwk(publicJwk) as Ed25519Key
    key.keyId = keyId
    if (ours) ourKeys.set(TypedArrayEncoder.toBase58(key.publicKey.publicKey), key)
    return key
  }
  /** `content` as a basic message packed by `service` for `to`, from `from` (null: anoncrypt), through `via`. */
  const pack = (service: DidCommEnvelopeService, content: string, to: Ed25519Key[], from: Ed25519Key | null, via: Ed25519Key[] = []) =>
    service.packMessage(agentContext, new DidCommBasicMessage({ content }), { recipientKeys: to, routingKeys: via, senderKey: from })
  return { agentContext, kmsBackend, durable, plain, createKey, pack }
}

describe('DurableEnvelopeService', () => {
  it('encrypts while the sync runs and hands the envelope out only once the sync is done', async () => {
    let syncs = 0
    let syncDone: (() => void) | undefined
    const { agentContext, kmsBackend, durable, plain, createKey, pack } = setUp(() => {
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
    const packed = pack(durable, 'after the disk', [recipient], sender).then((envelope) => {
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
    const { durable, createKey, pack } = setUp(() => Promise.reject(new Error('EIO: the disk refused the sync')))
    const [sender, recipient] = [await createKey(), await createKey()]
    await expect(pack(durable, 'never sent', [recipient], sender)).rejects.toThrow('EIO')
  })

  it('converts each recipient and routing key to X25519 once, however many messages it packs', async () => {
    const { agentContext, durable, plain, createKey, pack } = setUp(() => Promise.resolve())
    const [sender, recipient, mediator] = [await createKey(), await createKey(), await createKey()]
    const conversions = new Map<Ed25519Key, number>()
    for (const key of [recipient, mediator]) {
      const convert = key.convertTo.bind(key)
      key.convertTo = (type) => {
        conversions.set(key, (conversions.get(key) ?? 0) + 1)
        return convert(type)
      }
    }
    const expected = recipient.convertTo(Kms.X25519PublicJwk).toJson()
    conversions.clear()

    for (const content of ['first', 'second', 'third']) {
      const envelope = await pack(durable, content, [recipient], sender, [mediator])
      // the mediator's envelope holds a forward of the recipient's
      const { plaintextMessage: forward } = await plain.unpackMessage(agentContext, envelope)
      expect(forward.to).toBe(TypedArrayEncoder.toBase58(recipient.publicKey.publicKey))
      const { plaintextMessage, senderKey } = await plain.unpackMessage(agentContext, forward.msg as typeof envelope)
      expect(plaintextMessage.content).toBe(content)
      expect(senderKey?.fingerprint).toBe(sender.fingerprint)
    }
    // Credo alone converts the recipient's key twice per message (the sender key and the content
    // key are each encrypted to it) and the mediator's once: 9 conversions for these 3 messages
    expect(Object.fromEntries([...conversions].map(([key, n]) => [key === recipient ? 'recipient' : 'mediator', n]))).toEqual({
      recipient: 1,
      mediator: 1,
    })
    // what the cache hands out is Credo's own conversion of the key
    expect(x25519Of(recipient).toJson()).toEqual(expected)
  })

  it('wraps the envelope in a forward per routing key, each addressed to the key inside it', async () => {
    const { agentContext, durable, plain, createKey, pack } = setUp(() => Promise.resolve())
    const [sender, recipient, mediator, relay] = [await createKey(), await createKey(), await createKey(), await createKey()]
    const envelope = await pack(durable, 'two hops', [recipient], sender, [mediator, relay])
    const base58 = (key: Ed25519Key) => TypedArrayEncoder.toBase58(key.publicKey.publicKey)
    // the outermost envelope is the last routing key's, holding a forward to the one before it
    const outer = await plain.unpackMessage(agentContext, envelope)
    expect(outer.recipientKey.fingerprint).toBe(relay.fingerprint)
    expect(outer.senderKey).toBeUndefined()
    expect(outer.plaintextMessage.to).toBe(base58(mediator))
    const middle = await plain.unpackMessage(agentContext, outer.plaintextMessage.msg as typeof envelope)
    expect(middle.recipientKey.fingerprint).toBe(mediator.fingerprint)
    expect(middle.plaintextMessage.to).toBe(base58(recipient))
    const inner = await plain.unpackMessage(agentContext, middle.plaintextMessage.msg as typeof envelope)
    expect(inner.plaintextMessage.content).toBe('two hops')
    expect(inner.senderKey?.fingerprint).toBe(sender.fingerprint)
  })

  it('opens an envelope whose recipient of ours is not the last one listed, which Credo refuses', async () => {
    const { agentContext, durable, plain, createKey, pack } = setUp(() => Promise.resolve())
    const [sender, recipient, someoneElse] = [await createKey(), await createKey(), await createKey({ ours: false })]
    const envelope = await pack(plain, 'to two', [recipient, someoneElse], sender)
    const { plaintextMessage, recipientKey } = await durable.unpackMessage(agentContext, envelope)
    expect(plaintextMessage.content).toBe('to two')
    expect(recipientKey.fingerprint).toBe(recipient.fingerprint)
    await expect(plain.unpackMessage(agentContext, envelope)).rejects.toThrow('No corresponding recipient key found')
  })

  it('packs anoncrypt that Credo opens, with no sender key', async () => {
    const { agentContext, durable, plain, createKey, pack } = setUp(() => Promise.resolve())
    const recipient = await createKey()
    const envelope = await pack(durable, 'from no one', [recipient], null)
    const header = JSON.parse(TypedArrayEncoder.toUtf8String(TypedArrayEncoder.fromBase64(envelope.protected)))
    expect(header).toMatchObject({ alg: 'Anoncrypt', enc: 'xchacha20poly1305_ietf', typ: 'JWM/1.0' })
    expect(header.recipients[0].header).toEqual({ kid: TypedArrayEncoder.toBase58(recipient.publicKey.publicKey) })
    const { plaintextMessage, senderKey, recipientKey } = await plain.unpackMessage(agentContext, envelope)
    expect(plaintextMessage.content).toBe('from no one')
    expect(senderKey).toBeUndefined()
    expect(recipientKey.fingerprint).toBe(recipient.fingerprint)
  })

  it('wipes the content key once the envelope is made and once the message is decrypted', async () => {
    const { agentContext, kmsBackend, durable, createKey, pack } = setUp(() => Promise.resolve())
    const [sender, recipient] = [await createKey(), await createKey()]
    const contentKeys: Uint8Array[] = []
    const randomBytes = kmsBackend.randomBytes.bind(kmsBackend)
    kmsBackend.randomBytes = (...args) => {
      const bytes = randomBytes(...args)
      contentKeys.push(bytes)
      return bytes
    }
    const decrypt = kmsBackend.decrypt.bind(kmsBackend)
    kmsBackend.decrypt = async (context, options) => {
      const result = await decrypt(context, options)
      // the content key is what the box around `encrypted_key` holds
      if (options.key.keyAgreement?.externalPublicJwk) contentKeys.push(result.data)
      return result
    }
    const envelope = await pack(durable, 'no key left behind', [recipient], sender)
    const { plaintextMessage } = await durable.unpackMessage(agentContext, envelope)
    expect(plaintextMessage.content).toBe('no key left behind')
    expect(contentKeys).toHaveLength(2)
    for (const key of contentKeys) expect([...key]).toEqual(new Array(32).fill(0))
  })

  it("packs and opens through the KMS backend, never through Credo's KeyManagementApi", async () => {
    const { agentContext, kmsBackend, durable, createKey, pack } = setUp(() => Promise.resolve())
    const [sender, recipient] = [await createKey(), await createKey()]
    const api = ['encrypt', 'decrypt', 'randomBytes'].map((method) => vi.spyOn(Kms.KeyManagementApi.prototype, method as 'encrypt'))
    const backend = [vi.spyOn(kmsBackend, 'encrypt'), vi.spyOn(kmsBackend, 'decrypt'), vi.spyOn(kmsBackend, 'randomBytes')]
    try {
      const envelope = await pack(durable, 'straight to the KMS', [recipient], sender)
      const { plaintextMessage } = await durable.unpackMessage(agentContext, envelope)
      expect(plaintextMessage.content).toBe('straight to the KMS')
      for (const spy of api) expect(spy).not.toHaveBeenCalled()
      // encrypt and decrypt: the sender key, the content key, the message; random: the content key
      expect(backend.map((spy) => spy.mock.calls.length)).toEqual([3, 3, 1])
    } finally {
      for (const spy of [...api, ...backend]) spy.mockRestore()
    }
  })

  it('opens what Credo packs, authcrypt and anoncrypt, converting a sender key to X25519 once', async () => {
    const { agentContext, durable, plain, createKey, pack } = setUp(() => Promise.resolve())
    const [sender, recipient] = [await createKey(), await createKey()]
    const envelopes = [
      await pack(plain, 'one', [recipient], sender),
      await pack(plain, 'two', [recipient], sender),
      await pack(plain, 'three', [recipient], sender),
    ]
    const anonymous = await pack(plain, 'from no one', [recipient], null)

    const conversions = vi.spyOn(Kms.Ed25519PublicJwk.prototype, 'toX25519PublicJwk')
    try {
      for (const [i, content] of ['one', 'two', 'three'].entries()) {
        const { plaintextMessage, senderKey, recipientKey } = await durable.unpackMessage(agentContext, envelopes[i]!)
        expect(plaintextMessage.content).toBe(content)
        expect(senderKey?.fingerprint).toBe(sender.fingerprint)
        expect(recipientKey.fingerprint).toBe(recipient.fingerprint)
      }
      expect(conversions).toHaveBeenCalledTimes(1)
      const { plaintextMessage, senderKey } = await durable.unpackMessage(agentContext, anonymous)
      expect(plaintextMessage.content).toBe('from no one')
      expect(senderKey).toBeUndefined()
    } finally {
      conversions.mockRestore()
    }
  })

  it('refuses an envelope of another algorithm, or for no key of ours, as Credo does', async () => {
    const { agentContext, durable, plain, createKey, pack } = setUp(() => Promise.resolve())
    const [sender, recipient] = [await createKey(), await createKey()]
    const envelope = await pack(plain, 'hi', [recipient], sender)
    const header = JSON.parse(TypedArrayEncoder.toUtf8String(TypedArrayEncoder.fromBase64(envelope.protected)))
    const withHeader = (changed: object) => ({ ...envelope, protected: JsonEncoder.toBase64URL({ ...header, ...changed }) })
    for (const [changed, error] of [
      [{ alg: 'ECDH-1PU' }, 'Unsupported pack algorithm: ECDH-1PU'],
      [{ enc: 'A256GCM' }, 'Unsupported enc algorithm: A256GCM'],
      [
        { recipients: [{ ...header.recipients[0], header: { ...header.recipients[0].header, kid: 'not-ours' } }] },
        'No corresponding recipient key found',
      ],
      [
        { recipients: [{ ...header.recipients[0], header: { kid: header.recipients[0].header.kid } }] },
        'Sender and iv header values are required for Authcrypt',
      ],
    ] as const) {
      await expect(durable.unpackMessage(agentContext, withHeader(changed))).rejects.toThrow(error)
      await expect(plain.unpackMessage(agentContext, withHeader(changed))).rejects.toThrow(error)
    }
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
