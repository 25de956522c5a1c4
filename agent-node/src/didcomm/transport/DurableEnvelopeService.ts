/**
 * agent-node's DIDComm v1 envelopes (Aries RFC 0019, "Encryption Envelope"). Durability before
 * anything leaves: an envelope is handed out only once the commits made before it was asked for
 * are on disk. Every DIDComm message agent-node sends (over a wallet's session, to an endpoint,
 * into the pickup queue) is packed first, so no peer learns of a state a power loss could undo
 * (docs/durability.md, "Commits and the disk"). And the envelope's cryptography costs only the
 * cryptography: each peer key's X25519 form is worked out once (`agreement-keys.ts`), and every
 * encryption and decryption goes straight to the KMS backend that Credo's `KeyManagementApi`
 * would pick for it, without the API's validation of each call's options (a zod parse of the
 * options and the keys in them, about a fifth of a millisecond per message packed or opened here,
 * for options this file builds itself; bench/README.md, "chat-round-trip").
 */
import {
  CredoError,
  InjectionSymbols,
  JsonEncoder,
  Kms,
  TypedArrayEncoder,
  inject,
  injectable,
  type AgentContext,
  type Logger,
} from '@credo-ts/core'
import {
  DidCommDocumentService,
  DidCommEnvelopeService,
  DidCommForwardMessage,
  DidCommModuleConfig,
  type DidCommEncryptedMessage,
  type DidCommMessage,
} from '@credo-ts/didcomm'
import { x25519Of } from './agreement-keys.ts'

type Ed25519Key = Kms.PublicJwk<Kms.Ed25519PublicJwk>

/** What `unpackMessage` returns: the plaintext, the sender's key (authcrypt) and our key it was for. */
type Unpacked = Awaited<ReturnType<DidCommEnvelopeService['unpackMessage']>>

/** One entry of an envelope's `recipients` (RFC 0019): the content key encrypted to `header.kid`. */
interface EnvelopeRecipient {
  encrypted_key: string
  header: { kid: string; iv?: string; sender?: string }
}

/**
 * Credo's own lookup of which recipient key is ours (a DID, a mediator routing key or an
 * invitation's key), private in Credo 0.6.3 (the version the root `package.json` pins); a Credo
 * that renamed it fails every inbound message, and every DIDComm test with it.
 */
type FindOurKey = (agentContext: AgentContext, recipient: EnvelopeRecipient) => Promise<Ed25519Key | null>

/** The dependency token of what packing waits for (agent-node's `Database.syncToDisk`). */
export const SYNC_TO_DISK = Symbol('SyncToDisk')

/** RFC 0019's key wrapping: NaCl `crypto_box` (authcrypt) or `crypto_box_seal` (anoncrypt). */
const KEY_AGREEMENT = 'ECDH-HSALSA20'
const KEY_WRAP = 'XSALSA20-POLY1305'
/** RFC 0019's content encryption (`enc: xchacha20poly1305_ietf`), as Credo's KMS names it. */
const CONTENT_CIPHER = 'C20P'

/**
 * The backend Credo's `KeyManagementApi` would use for `operation`: the first configured one that
 * supports it (agent-node configures one).
 * @throws Kms.KeyManagementError when none does
 */
function backendFor(agentContext: AgentContext, operation: Kms.KmsOperation): Kms.KeyManagementService {
  const backend = agentContext
    .resolve(Kms.KeyManagementModuleConfig)
    .backends.find((kms) => kms.isOperationSupported(agentContext, operation))
  if (!backend)
    throw new Kms.KeyManagementError(`No key management service backend supports ${Kms.getKmsOperationHumanDescription(operation)}`)
  return backend
}

/** `KeyManagementApi.encrypt` without its validation of `options`. */
function kmsEncrypt(agentContext: AgentContext, options: Kms.KmsEncryptOptions): Promise<Kms.KmsEncryptReturn> {
  const operation = { operation: 'encrypt', encryption: options.encryption, keyAgreement: options.key.keyAgreement } as const
  return backendFor(agentContext, operation).encrypt(agentContext, options)
}

/** `KeyManagementApi.decrypt` without its validation of `options`. */
function kmsDecrypt(agentContext: AgentContext, options: Kms.KmsDecryptOptions): Promise<Kms.KmsDecryptReturn> {
  const operation = { operation: 'decrypt', decryption: options.decryption, keyAgreement: options.key.keyAgreement } as const
  return backendFor(agentContext, operation).decrypt(agentContext, options)
}

/** A content key as the KMS takes it for `C20P`. */
const contentJwk = (key: Uint8Array): Kms.KmsJwkPrivateOct => ({ kty: 'oct', k: TypedArrayEncoder.toBase64URL(key) })

@injectable()
export class DurableEnvelopeService extends DidCommEnvelopeService {
  constructor(@inject(InjectionSymbols.Logger) logger: Logger, @inject(DidCommDocumentService) documentService: DidCommDocumentService) {
    super(logger, documentService)
  }

  /**
   * Packs `payload` for `keys.recipientKeys` (authcrypt from `keys.senderKey`, anoncrypt without
   * one), then wraps it in a forward to each of `keys.routingKeys` in turn, as Credo 0.6.3 does
   * (RFC 0019, and RFC 0094 "Cross-Domain Messaging" for the forwards). Resolves once both the
   * envelope and the sync of the commits made before the call are done.
   * @throws Kms.KeyManagementError when the KMS cannot encrypt (an unknown sender key id, a key
   *   of another type); the sync's error when the disk refuses it
   */
  override async packMessage(
    agentContext: AgentContext,
    payload: DidCommMessage,
    keys: Parameters<DidCommEnvelopeService['packMessage']>[2],
  ): Promise<DidCommEncryptedMessage> {
    const durable = agentContext.resolve<() => Promise<void>>(SYNC_TO_DISK)()
    const [envelope] = await Promise.all([this.pack(agentContext, payload, keys), durable])
    return envelope
  }

  private async pack(
    agentContext: AgentContext,
    payload: DidCommMessage,
    { recipientKeys, routingKeys, senderKey }: Parameters<DidCommEnvelopeService['packMessage']>[2],
  ): Promise<DidCommEncryptedMessage> {
    const { useDidSovPrefixWhereAllowed } = agentContext.resolve(DidCommModuleConfig)
    let envelope = await this.envelope(agentContext, payload.toJSON({ useDidSovPrefixWhereAllowed }), recipientKeys, senderKey)
    let next = recipientKeys[0]
    for (const routingKey of routingKeys) {
      if (!next) throw new CredoError('A message with routing keys needs a recipient key')
      const forward = new DidCommForwardMessage({ to: TypedArrayEncoder.toBase58(next.publicKey.publicKey), message: envelope })
      envelope = await this.envelope(agentContext, forward.toJSON({ useDidSovPrefixWhereAllowed }), [routingKey], null)
      next = routingKey
    }
    return envelope
  }

  /**
   * One RFC 0019 envelope of `message` for `recipientKeys`: a fresh 32-byte content key encrypts
   * the message (XChaCha20-Poly1305, the protected header as AAD) and is boxed to each recipient,
   * from `senderKey` (authcrypt, the sender's verkey sealed to the recipient beside it) or
   * sealed (anoncrypt). The content key is wiped once the envelope is made.
   */
  private async envelope(
    agentContext: AgentContext,
    message: Record<string, unknown>,
    recipientKeys: Ed25519Key[],
    senderKey: Ed25519Key | null | undefined,
  ): Promise<DidCommEncryptedMessage> {
    const contentKey = backendFor(agentContext, { operation: 'randomBytes' }).randomBytes(agentContext, { length: 32 })
    try {
      return await this.sealedWith(agentContext, contentKey, message, recipientKeys, senderKey)
    } finally {
      contentKey.fill(0)
    }
  }

  /** `envelope` with its content key `contentKey`. */
  private async sealedWith(
    agentContext: AgentContext,
    contentKey: Uint8Array,
    message: Record<string, unknown>,
    recipientKeys: Ed25519Key[],
    senderKey: Ed25519Key | null | undefined,
  ): Promise<DidCommEncryptedMessage> {
    const recipients: EnvelopeRecipient[] = []
    for (const recipientKey of recipientKeys) {
      const externalPublicJwk = x25519Of(recipientKey).toJson()
      let sender: string | undefined
      if (senderKey) {
        const { encrypted } = await kmsEncrypt(agentContext, {
          key: { keyAgreement: { algorithm: KEY_AGREEMENT, externalPublicJwk } },
          encryption: { algorithm: KEY_WRAP },
          data: TypedArrayEncoder.fromString(TypedArrayEncoder.toBase58(senderKey.publicKey.publicKey)),
        })
        sender = TypedArrayEncoder.toBase64URL(encrypted)
      }
      const { encrypted, iv } = await kmsEncrypt(agentContext, {
        key: { keyAgreement: { algorithm: KEY_AGREEMENT, externalPublicJwk, keyId: senderKey?.keyId } },
        encryption: { algorithm: KEY_WRAP },
        data: contentKey,
      })
      recipients.push({
        encrypted_key: TypedArrayEncoder.toBase64URL(encrypted),
        header: { kid: TypedArrayEncoder.toBase58(recipientKey.publicKey.publicKey), iv: iv && TypedArrayEncoder.toBase64URL(iv), sender },
      })
    }
    const protectedHeader = JsonEncoder.toBase64URL({
      enc: 'xchacha20poly1305_ietf',
      typ: 'JWM/1.0',
      alg: senderKey ? 'Authcrypt' : 'Anoncrypt',
      recipients,
    })
    const { encrypted, iv, tag } = await kmsEncrypt(agentContext, {
      key: { privateJwk: contentJwk(contentKey) },
      encryption: { algorithm: CONTENT_CIPHER, aad: TypedArrayEncoder.fromString(protectedHeader) },
      data: JsonEncoder.toBuffer(message),
    })
    if (!iv || !tag) throw new CredoError("Expected 'iv' and 'tag' to be defined")
    return {
      ciphertext: TypedArrayEncoder.toBase64URL(encrypted),
      iv: TypedArrayEncoder.toBase64URL(iv),
      tag: TypedArrayEncoder.toBase64URL(tag),
      protected: protectedHeader,
    }
  }

  /**
   * Opens an authcrypt or anoncrypt envelope as Credo 0.6.3 does (the same checks, lookup of our
   * key and errors), with the sender's Ed25519 key turned into X25519 through the cache and the
   * KMS backend called directly; the content key is wiped once the message is decrypted.
   * @throws {CredoError} for an unsupported `alg` or `enc`, no recipient key of ours, or an
   *   authcrypt recipient without `sender` and `iv`; what the KMS throws when a part does not
   *   decrypt
   */
  override async unpackMessage(agentContext: AgentContext, encryptedMessage: DidCommEncryptedMessage): Promise<Unpacked> {
    const header = JsonEncoder.fromBase64(encryptedMessage.protected) as { alg?: string; enc?: string; recipients: EnvelopeRecipient[] }
    const { alg } = header
    if (alg !== 'Anoncrypt' && alg !== 'Authcrypt') throw new CredoError(`Unsupported pack algorithm: ${alg}`)
    if (header.enc !== 'xchacha20poly1305_ietf') throw new CredoError(`Unsupported enc algorithm: ${header.enc}`)

    const findOurKey = (this as unknown as { extractOurRecipientKeyWithKeyId: FindOurKey }).extractOurRecipientKeyWithKeyId.bind(this)
    let recipientKey: Ed25519Key | null = null
    let recipient: EnvelopeRecipient | null = null
    for (const candidate of header.recipients) {
      const key = await findOurKey(agentContext, candidate)
      // the last one of ours (Credo's own loop also forgets an earlier one when the last is not ours)
      if (key) [recipientKey, recipient] = [key, candidate]
    }
    if (!recipientKey || !recipient) throw new CredoError('No corresponding recipient key found')
    const { sender, iv } = recipient.header
    if (alg === 'Authcrypt' && (!sender || !iv)) throw new CredoError('Sender and iv header values are required for Authcrypt')

    let senderKey: Ed25519Key | undefined
    if (sender) {
      const { data } = await kmsDecrypt(agentContext, {
        key: { keyAgreement: { algorithm: KEY_AGREEMENT, keyId: recipientKey.keyId } },
        decryption: { algorithm: KEY_WRAP },
        encrypted: TypedArrayEncoder.fromBase64(sender),
      })
      const publicKey = TypedArrayEncoder.fromBase58(TypedArrayEncoder.toUtf8String(data))
      senderKey = Kms.PublicJwk.fromPublicKey({ kty: 'OKP', crv: 'Ed25519', publicKey }) as Ed25519Key
    }
    const { data: contentKey } = await kmsDecrypt(agentContext, {
      decryption: { algorithm: KEY_WRAP, iv: iv ? TypedArrayEncoder.fromBase64(iv) : undefined },
      encrypted: TypedArrayEncoder.fromBase64(recipient.encrypted_key),
      key: {
        keyAgreement: {
          algorithm: KEY_AGREEMENT,
          keyId: recipientKey.keyId,
          externalPublicJwk: senderKey ? x25519Of(senderKey).toJson() : undefined,
        },
      },
    })
    const { data: plaintext } = await kmsDecrypt(agentContext, {
      decryption: {
        algorithm: CONTENT_CIPHER,
        iv: TypedArrayEncoder.fromBase64(encryptedMessage.iv),
        tag: TypedArrayEncoder.fromBase64(encryptedMessage.tag),
        aad: TypedArrayEncoder.fromString(encryptedMessage.protected),
      },
      key: { privateJwk: contentJwk(contentKey) },
      encrypted: TypedArrayEncoder.fromBase64(encryptedMessage.ciphertext),
    }).finally(() => contentKey.fill(0))
    return { plaintextMessage: JsonEncoder.fromBuffer(plaintext), senderKey, recipientKey }
  }
}
