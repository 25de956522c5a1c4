/**
 * DIDComm v1 envelopes (Aries RFC 0019) packed and unpacked by Credo's own DidCommEnvelopeService
 * through Kms.KeyManagementApi on ParleyKeyManagementService; the envelope's keys also open with
 * libsodium, as a libsodium-based peer (ACA-Py, indy-sdk agents) would open them.
 */
import { AgentConfig, AgentContext, ConsoleLogger, DependencyManager, Kms, LogLevel, TypedArrayEncoder } from '@credo-ts/core'
import {
  DidCommBasicMessage,
  type DidCommDocumentService,
  type DidCommEncryptedMessage,
  DidCommEnvelopeService,
  DidCommModuleConfig,
} from '@credo-ts/didcomm'
import { agentDependencies, NodeInMemoryKeyManagementStorage } from '@credo-ts/node'
import sodium from 'libsodium-wrappers'
import { beforeAll, describe, expect, it } from 'vitest'
import { ParleyKeyManagementService } from '../../src/wallet/kms/index.ts'

type Ed25519Key = Kms.PublicJwk<Kms.Ed25519PublicJwk>

const storage = new NodeInMemoryKeyManagementStorage()
const logger = new ConsoleLogger(LogLevel.off)
const dependencyManager = new DependencyManager()
const agentContext = new AgentContext({ dependencyManager, contextCorrelationId: 'default' })
dependencyManager.registerInstance(AgentContext, agentContext)
dependencyManager.registerInstance(AgentConfig, new AgentConfig({ logger }, agentDependencies))
dependencyManager.registerInstance(DidCommModuleConfig, new DidCommModuleConfig({}))
dependencyManager.registerInstance(
  Kms.KeyManagementModuleConfig,
  new Kms.KeyManagementModuleConfig({ backends: [new ParleyKeyManagementService(storage)] }),
)
const kms = agentContext.resolve(Kms.KeyManagementApi)

// The envelope service is Credo's, unchanged, except for how it finds which of the recipient keys
// is ours (normally DID records, mediator routing and out-of-band records in storage).
const envelope = new DidCommEnvelopeService(logger, {} as DidCommDocumentService)
const ourKeys = new Map<string, Ed25519Key>()
Object.assign(envelope, {
  extractOurRecipientKeyWithKeyId: async (_context: AgentContext, recipient: { header: { kid: string } }) =>
    ourKeys.get(recipient.header.kid) ?? null,
})

async function createKey(): Promise<Ed25519Key> {
  const { keyId, publicJwk } = await kms.createKey({ type: { kty: 'OKP', crv: 'Ed25519' } })
  const key = Kms.PublicJwk.fromPublicJwk(publicJwk) as Ed25519Key
  key.keyId = keyId
  ourKeys.set(TypedArrayEncoder.toBase58(key.publicKey.publicKey), key)
  return key
}

/** libsodium's X25519 key pair for one of our keys, from its stored private JWK. */
async function sodiumBoxKeyPair(key: Ed25519Key) {
  const privateJwk = await storage.get(agentContext, key.keyId)
  if (privateJwk?.kty !== 'OKP') throw new Error('expected a stored OKP key')
  const { privateKey } = sodium.crypto_sign_seed_keypair(TypedArrayEncoder.fromBase64(privateJwk.d))
  return {
    privateKey: sodium.crypto_sign_ed25519_sk_to_curve25519(privateKey),
    publicKey: sodium.crypto_sign_ed25519_pk_to_curve25519(key.publicKey.publicKey),
  }
}

interface ProtectedHeader {
  alg: string
  enc: string
  recipients: { encrypted_key: string; header: { kid: string; iv?: string; sender?: string } }[]
}
const protectedHeader = (message: DidCommEncryptedMessage) =>
  JSON.parse(TypedArrayEncoder.toUtf8String(TypedArrayEncoder.fromBase64(message.protected))) as ProtectedHeader

let agent: Ed25519Key
let peer: Ed25519Key
let mediator: Ed25519Key

beforeAll(async () => {
  await sodium.ready
  agent = await createKey()
  peer = await createKey()
  mediator = await createKey()
})

describe('DIDComm v1 envelope through Credo', () => {
  it('authcrypt: pack, then unpack with the recipient key, sender authenticated', async () => {
    const message = new DidCommBasicMessage({ content: 'hello, authcrypt' })
    const packed = await envelope.packMessage(agentContext, message, {
      recipientKeys: [peer],
      routingKeys: [],
      senderKey: agent,
    })
    const header = protectedHeader(packed)
    expect(header.alg).toBe('Authcrypt')
    expect(header.recipients[0]?.header.iv).toBeDefined()
    expect(header.recipients[0]?.header.sender).toBeDefined()

    const unpacked = await envelope.unpackMessage(agentContext, packed)
    expect(unpacked.plaintextMessage).toMatchObject({ '@id': message.id, content: 'hello, authcrypt' })
    expect(unpacked.senderKey?.equals(agent)).toBe(true)
    expect(unpacked.recipientKey.equals(peer)).toBe(true)
  })

  it('anoncrypt with a mediator: forward envelope opens with the routing key, inner with the recipient', async () => {
    const message = new DidCommBasicMessage({ content: 'hello through a mediator' })
    const packed = await envelope.packMessage(agentContext, message, {
      recipientKeys: [peer],
      routingKeys: [mediator],
      senderKey: null,
    })
    const outer = protectedHeader(packed)
    expect(outer.alg).toBe('Anoncrypt')
    expect(outer.recipients[0]?.header.iv).toBeUndefined()

    const forward = await envelope.unpackMessage(agentContext, packed)
    expect(forward.recipientKey.equals(mediator)).toBe(true)
    expect(forward.senderKey).toBeUndefined()
    expect(forward.plaintextMessage['@type']).toBe('https://didcomm.org/routing/1.0/forward')
    const inner = forward.plaintextMessage.msg as DidCommEncryptedMessage
    expect(protectedHeader(inner).alg).toBe('Anoncrypt')

    const unpacked = await envelope.unpackMessage(agentContext, inner)
    expect(unpacked.plaintextMessage).toMatchObject({ content: 'hello through a mediator' })
    expect(unpacked.recipientKey.equals(peer)).toBe(true)
    expect(unpacked.senderKey).toBeUndefined()
  })

  it('a libsodium peer opens our authcrypt envelope keys: content key and sender verkey', async () => {
    const packed = await envelope.packMessage(agentContext, new DidCommBasicMessage({ content: 'interop' }), {
      recipientKeys: [peer],
      routingKeys: [],
      senderKey: agent,
    })
    const [recipient] = protectedHeader(packed).recipients
    if (!recipient?.header.iv || !recipient.header.sender) throw new Error('expected an authcrypt recipient')
    const peerBox = await sodiumBoxKeyPair(peer)
    const agentBox = await sodiumBoxKeyPair(agent)

    const sender = sodium.crypto_box_seal_open(TypedArrayEncoder.fromBase64(recipient.header.sender), peerBox.publicKey, peerBox.privateKey)
    expect(TypedArrayEncoder.toUtf8String(sender)).toBe(TypedArrayEncoder.toBase58(agent.publicKey.publicKey))

    const contentKey = sodium.crypto_box_open_easy(
      TypedArrayEncoder.fromBase64(recipient.encrypted_key),
      TypedArrayEncoder.fromBase64(recipient.header.iv),
      agentBox.publicKey,
      peerBox.privateKey,
    )
    expect(contentKey).toHaveLength(32)
    // The content key opens the body (ChaCha20-Poly1305 IETF, protected header as AAD).
    const body = sodium.crypto_aead_chacha20poly1305_ietf_decrypt(
      null,
      new Uint8Array([...TypedArrayEncoder.fromBase64(packed.ciphertext), ...TypedArrayEncoder.fromBase64(packed.tag)]),
      TypedArrayEncoder.fromString(packed.protected),
      TypedArrayEncoder.fromBase64(packed.iv),
      contentKey,
    )
    expect(JSON.parse(TypedArrayEncoder.toUtf8String(body))).toMatchObject({ content: 'interop' })
  })

  it('a tampered envelope key fails with a KeyManagementError', async () => {
    const packed = await envelope.packMessage(agentContext, new DidCommBasicMessage({ content: 'tamper' }), {
      recipientKeys: [peer],
      routingKeys: [],
      senderKey: agent,
    })
    const header = protectedHeader(packed)
    const recipient = header.recipients[0]
    if (!recipient) throw new Error('expected a recipient')
    const encryptedKey = TypedArrayEncoder.fromBase64(recipient.encrypted_key)
    encryptedKey[0] = (encryptedKey[0] as number) ^ 1
    recipient.encrypted_key = TypedArrayEncoder.toBase64URL(encryptedKey)
    const protectedJson = TypedArrayEncoder.fromString(JSON.stringify(header))
    const tampered = { ...packed, protected: TypedArrayEncoder.toBase64URL(protectedJson) }
    await expect(envelope.unpackMessage(agentContext, tampered)).rejects.toThrow(Kms.KeyManagementError)
  })
})
