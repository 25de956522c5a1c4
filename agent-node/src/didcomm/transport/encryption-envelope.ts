/**
 * DIDComm v1 encryption envelopes (Aries RFC 0019, "Encryption Envelope"): authcrypt and
 * anoncrypt, sealed and opened as Credo 0.6.3's envelope service does, field for field, at the
 * cost of the cryptography alone. Each peer key's X25519 form is worked out once
 * (`agreement-keys.ts`), and every encryption and decryption goes straight to the KMS backend
 * that Credo's `KeyManagementApi` would pick for it, without the API's validation of each call's
 * options (a zod parse of the options and the keys in them, about a fifth of a millisecond per
 * message sealed or opened here, for options this file builds itself; bench/README.md,
 * "chat-round-trip"). `DurableEnvelopeService` uses them.
 */
import { CredoError, JsonEncoder, Kms, TypedArrayEncoder, type AgentContext } from '@credo-ts/core'
import type { DidCommEncryptedMessage, DidCommEnvelopeService } from '@credo-ts/didcomm'
import { BOX_CIPHER, BOX_KEY_AGREEMENT } from '../../wallet/kms/index.ts'
import { type Ed25519Key, x25519Of } from './agreement-keys.ts'

/** One entry of an envelope's `recipients`: the content key encrypted to `header.kid`. */
export interface EnvelopeRecipient {
  encrypted_key: string
  header: { kid: string; iv?: string; sender?: string }
}

/** Which recipient of an envelope is ours: our key (with its KMS key id), or null. */
export type FindOurKey = (agentContext: AgentContext, recipient: EnvelopeRecipient) => Promise<Ed25519Key | null>

/**
 * An opened envelope, as Credo's envelope service returns it: the plaintext message, the sender's
 * key (authcrypt only) and our key it was for.
 */
export type OpenedEnvelope = Awaited<ReturnType<DidCommEnvelopeService['unpackMessage']>>

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
    throw new Kms.KeyManagementError(
      `No key management service backend found that supports ${Kms.getKmsOperationHumanDescription(operation)}`,
    )
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

/**
 * `key`'s X25519 form as a JWK for the KMS: a copy, so that nothing a backend does to it reaches
 * the cached key (`x25519Of`).
 */
const agreementJwk = (key: Ed25519Key) => ({ ...x25519Of(key).toJson() })

/** A content key as the KMS takes it for `C20P`. */
const contentJwk = (key: Uint8Array): Kms.KmsJwkPrivateOct => ({ kty: 'oct', k: TypedArrayEncoder.toBase64URL(key) })

/**
 * One RFC 0019 envelope of `message` (a DIDComm message's JSON) for `recipientKeys`: a fresh
 * 32-byte content key encrypts the message (XChaCha20-Poly1305, the protected header as AAD) and
 * is boxed to each recipient, from `senderKey` (authcrypt, the sender's verkey sealed to the
 * recipient beside it) or sealed (anoncrypt). The byte copy of the content key held here is wiped
 * once the envelope is made.
 * @throws Kms.KeyManagementError when the KMS cannot encrypt (an unknown sender key id, a key of
 *   another type)
 */
export async function sealEnvelope(
  agentContext: AgentContext,
  message: Record<string, unknown>,
  recipientKeys: Ed25519Key[],
  senderKey: Ed25519Key | null | undefined,
): Promise<DidCommEncryptedMessage> {
  const contentKey = backendFor(agentContext, { operation: 'randomBytes' }).randomBytes(agentContext, { length: 32 })
  // authcrypt: the sender's verkey (base58), sealed to each recipient
  const senderVerkey = senderKey ? TypedArrayEncoder.fromString(TypedArrayEncoder.toBase58(senderKey.publicKey.publicKey)) : undefined
  try {
    const recipients: EnvelopeRecipient[] = []
    for (const recipientKey of recipientKeys) {
      const externalPublicJwk = agreementJwk(recipientKey)
      const sealedSender =
        senderVerkey &&
        (await kmsEncrypt(agentContext, {
          key: { keyAgreement: { algorithm: BOX_KEY_AGREEMENT, externalPublicJwk } },
          encryption: { algorithm: BOX_CIPHER },
          data: senderVerkey,
        }))
      const { encrypted, iv } = await kmsEncrypt(agentContext, {
        key: { keyAgreement: { algorithm: BOX_KEY_AGREEMENT, externalPublicJwk, keyId: senderKey?.keyId } },
        encryption: { algorithm: BOX_CIPHER },
        data: contentKey,
      })
      recipients.push({
        encrypted_key: TypedArrayEncoder.toBase64URL(encrypted),
        header: {
          kid: TypedArrayEncoder.toBase58(recipientKey.publicKey.publicKey),
          iv: iv && TypedArrayEncoder.toBase64URL(iv),
          sender: sealedSender && TypedArrayEncoder.toBase64URL(sealedSender.encrypted),
        },
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
  } finally {
    contentKey.fill(0)
  }
}

/**
 * Opens an authcrypt or anoncrypt envelope with Credo 0.6.3's checks and errors, the sender's
 * Ed25519 key turned into X25519 through the cache and the KMS backend called directly; the byte
 * copy of the content key held here is wiped once the message is decrypted. Which recipient key is
 * ours is `findOurKey`'s answer, and here one difference from Credo: the last recipient of ours in
 * the list is used, where Credo's loop keeps only its answer for the last recipient and refuses
 * the envelope when that one is not ours.
 * @throws {CredoError} for an unsupported `alg` or `enc`, no recipient key of ours, or an
 *   authcrypt recipient without `sender` and `iv`; what the KMS throws when a part does not
 *   decrypt
 */
export async function openEnvelope(
  agentContext: AgentContext,
  encryptedMessage: DidCommEncryptedMessage,
  findOurKey: FindOurKey,
): Promise<OpenedEnvelope> {
  const header = JsonEncoder.fromBase64(encryptedMessage.protected) as { alg?: string; enc?: string; recipients: EnvelopeRecipient[] }
  const { alg } = header
  if (alg !== 'Anoncrypt' && alg !== 'Authcrypt') throw new CredoError(`Unsupported pack algorithm: ${alg}`)
  if (header.enc !== 'xchacha20poly1305_ietf') throw new CredoError(`Unsupported enc algorithm: ${header.enc}`)

  let recipientKey: Ed25519Key | null = null
  let recipient: EnvelopeRecipient | null = null
  for (const candidate of header.recipients) {
    const key = await findOurKey(agentContext, candidate)
    // the last one of ours (Credo keeps the last recipient's answer, even when it is not ours)
    if (key) [recipientKey, recipient] = [key, candidate]
  }
  if (!recipientKey || !recipient) throw new CredoError('No corresponding recipient key found')
  const { sender, iv } = recipient.header
  if (alg === 'Authcrypt' && (!sender || !iv)) throw new CredoError('Sender and iv header values are required for Authcrypt')

  let senderKey: Ed25519Key | undefined
  if (sender) {
    const { data } = await kmsDecrypt(agentContext, {
      key: { keyAgreement: { algorithm: BOX_KEY_AGREEMENT, keyId: recipientKey.keyId } },
      decryption: { algorithm: BOX_CIPHER },
      encrypted: TypedArrayEncoder.fromBase64(sender),
    })
    const publicKey = TypedArrayEncoder.fromBase58(TypedArrayEncoder.toUtf8String(data))
    senderKey = Kms.PublicJwk.fromPublicKey({ kty: 'OKP', crv: 'Ed25519', publicKey }) as Ed25519Key
  }
  const { data: contentKey } = await kmsDecrypt(agentContext, {
    decryption: { algorithm: BOX_CIPHER, iv: iv ? TypedArrayEncoder.fromBase64(iv) : undefined },
    encrypted: TypedArrayEncoder.fromBase64(recipient.encrypted_key),
    key: {
      keyAgreement: {
        algorithm: BOX_KEY_AGREEMENT,
        keyId: recipientKey.keyId,
        externalPublicJwk: senderKey ? agreementJwk(senderKey) : undefined,
      },
    },
  })
  try {
    const { data: plaintext } = await kmsDecrypt(agentContext, {
      decryption: {
        algorithm: CONTENT_CIPHER,
        iv: TypedArrayEncoder.fromBase64(encryptedMessage.iv),
        tag: TypedArrayEncoder.fromBase64(encryptedMessage.tag),
        aad: TypedArrayEncoder.fromString(encryptedMessage.protected),
      },
      key: { privateJwk: contentJwk(contentKey) },
      encrypted: TypedArrayEncoder.fromBase64(encryptedMessage.ciphertext),
    })
    return { plaintextMessage: JsonEncoder.fromBuffer(plaintext), senderKey, recipientKey }
  } finally {
    contentKey.fill(0)
  }
}
