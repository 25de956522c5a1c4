/**
 * agent-node's DIDComm v1 envelopes (Aries RFC 0019, "Encryption Envelope"). Durability before
 * anything leaves: an envelope is handed out only once the commits made before it was asked for
 * are on disk. Every DIDComm message agent-node sends (over a wallet's session, to an endpoint,
 * into the pickup queue) is packed first, so no peer learns of a state a power loss could undo
 * (docs/durability.md, "Commits and the disk"). And each peer key's X25519 form is worked out
 * once (`agreement-keys.ts`), not on every message packed or opened.
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
import { DidCommDocumentService, DidCommEnvelopeService, type DidCommEncryptedMessage, type DidCommMessage } from '@credo-ts/didcomm'
import { withCachedAgreementKey, x25519Of } from './agreement-keys.ts'

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

/**
 * Credo's envelope service, whose `packMessage` also waits for `SYNC_TO_DISK`. The sync starts
 * when packing does and runs beside it (the `fdatasync` on libuv's thread pool, the encryption on
 * the event loop), so a message waits for the disk only if its sync takes longer than its
 * encryption. Waiting before packing, as the sender did, put both on every message's path, one
 * after the other (bench/README.md, "chat-round-trip"). Packing and opening use the peer keys'
 * cached X25519 forms; the envelopes are the same as Credo's, byte for byte in their format.
 */
@injectable()
export class DurableEnvelopeService extends DidCommEnvelopeService {
  constructor(@inject(InjectionSymbols.Logger) logger: Logger, @inject(DidCommDocumentService) documentService: DidCommDocumentService) {
    super(logger, documentService)
  }

  /**
   * Packs as Credo does (recipient and routing keys converted to X25519 once per key, see
   * `withCachedAgreementKey`), and resolves once both the envelope and the sync of the commits
   * made before the call are done.
   * @throws what packing throws; the sync's error when the disk refuses it
   */
  override async packMessage(
    agentContext: AgentContext,
    payload: DidCommMessage,
    keys: Parameters<DidCommEnvelopeService['packMessage']>[2],
  ): Promise<DidCommEncryptedMessage> {
    const durable = agentContext.resolve<() => Promise<void>>(SYNC_TO_DISK)()
    const cached = {
      ...keys,
      recipientKeys: keys.recipientKeys.map(withCachedAgreementKey),
      routingKeys: keys.routingKeys.map(withCachedAgreementKey),
    }
    const [envelope] = await Promise.all([super.packMessage(agentContext, payload, cached), durable])
    return envelope
  }

  /**
   * Opens an authcrypt or anoncrypt envelope as Credo 0.6.3 does (the same checks, lookup of our
   * key and errors), except that the sender's Ed25519 key is turned into X25519 through the cache.
   * @throws {CredoError} for an unsupported `alg` or `enc`, no recipient key of ours, or an
   *   authcrypt recipient without `sender` and `iv`; what the KMS throws when a part does not
   *   decrypt
   */
  override async unpackMessage(agentContext: AgentContext, encryptedMessage: DidCommEncryptedMessage): Promise<Unpacked> {
    const kms = agentContext.resolve(Kms.KeyManagementApi)
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
      const { data } = await kms.decrypt({
        key: { keyAgreement: { algorithm: 'ECDH-HSALSA20', keyId: recipientKey.keyId } },
        decryption: { algorithm: 'XSALSA20-POLY1305' },
        encrypted: TypedArrayEncoder.fromBase64(sender),
      })
      const publicKey = TypedArrayEncoder.fromBase58(TypedArrayEncoder.toUtf8String(data))
      senderKey = Kms.PublicJwk.fromPublicKey({ kty: 'OKP', crv: 'Ed25519', publicKey }) as Ed25519Key
    }
    const { data: contentKey } = await kms.decrypt({
      decryption: { algorithm: 'XSALSA20-POLY1305', iv: iv ? TypedArrayEncoder.fromBase64(iv) : undefined },
      encrypted: TypedArrayEncoder.fromBase64(recipient.encrypted_key),
      key: {
        keyAgreement: {
          algorithm: 'ECDH-HSALSA20',
          keyId: recipientKey.keyId,
          externalPublicJwk: senderKey ? x25519Of(senderKey).toJson() : undefined,
        },
      },
    })
    const { data: plaintext } = await kms.decrypt({
      decryption: {
        algorithm: 'C20P',
        iv: TypedArrayEncoder.fromBase64(encryptedMessage.iv),
        tag: TypedArrayEncoder.fromBase64(encryptedMessage.tag),
        aad: TypedArrayEncoder.fromString(encryptedMessage.protected),
      },
      key: { privateJwk: { kty: 'oct', k: TypedArrayEncoder.toBase64URL(contentKey) } },
      encrypted: TypedArrayEncoder.fromBase64(encryptedMessage.ciphertext),
    })
    return { plaintextMessage: JsonEncoder.fromBuffer(plaintext), senderKey, recipientKey }
  }
}
