/**
 * The agent's key management service: Credo's `NodeKeyManagementService` plus the NaCl
 * `crypto_box` that DIDComm v1 envelopes (Aries RFC 0019) need and Node's KMS lacks.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { type AgentContext, Kms } from '@credo-ts/core'
import { NodeKeyManagementService, type NodeKeyManagementStorage } from '@credo-ts/node'
import {
  BOX_KEY_BYTES,
  BOX_NONCE_BYTES,
  BoxOpenError,
  boxEasy,
  boxOpenEasy,
  boxSeal,
  boxSealOpen,
  ed25519SecretToX25519,
  okpPrivateKey,
} from './cryptoBox.ts'

/** The NaCl box pair as Credo's KMS names it: key agreement and cipher (Aries RFC 0019's key wrapping). */
export const BOX_KEY_AGREEMENT = 'ECDH-HSALSA20'
export const BOX_CIPHER = 'XSALSA20-POLY1305'

type EncryptKeyAgreement = Kms.KmsKeyAgreementEncryptEcdhHsalsa20
type DecryptKeyAgreement = Kms.KmsKeyAgreementDecryptEcdhHsalsa20

/** Whether an operation asks for the NaCl box at all (either half of the pair). */
function touchesBox(keyAgreement: { algorithm: string } | undefined, cipher: { algorithm: string }): boolean {
  return keyAgreement?.algorithm === BOX_KEY_AGREEMENT || cipher.algorithm === BOX_CIPHER
}

/** Whether an operation asks for the whole pair ECDH-HSALSA20 + XSALSA20-POLY1305. */
function isBox(keyAgreement: { algorithm: string } | undefined, cipher: { algorithm: string }): boolean {
  return keyAgreement?.algorithm === BOX_KEY_AGREEMENT && cipher.algorithm === BOX_CIPHER
}

/** Decodes base64url into a fresh, unpooled buffer, so wiping it wipes the only copy. */
function bytesFromBase64Url(value: string): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.alloc(Buffer.byteLength(value, 'base64url'))
  const length = bytes.write(value, 'base64url')
  return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, length)
}

/**
 * A Credo 0.6 KMS backend for Node without native code.
 *
 * Everything is `NodeKeyManagementService` (node:crypto) except encrypt/decrypt with key
 * agreement `ECDH-HSALSA20` and cipher `XSALSA20-POLY1305`, which this class does itself
 * (`cryptoBox.ts`: X25519 in node:crypto, HSalsa20 and XSalsa20-Poly1305 from @noble),
 * byte-compatible with libsodium, exactly as Credo's DIDComm v1 envelope service
 * (`DidCommEnvelopeService`) calls them:
 *
 * - encrypt, `keyAgreement: { keyId, externalPublicJwk }` -> authcrypt, `crypto_box_easy` from our
 *   key to `externalPublicJwk` with a fresh random 24-byte nonce (or `encryption.iv` if given);
 *   returns `{ encrypted: MAC || ciphertext, iv: nonce }`
 * - encrypt, `keyAgreement: { externalPublicJwk }` (no `keyId`) -> anoncrypt, `crypto_box_seal`;
 *   returns `{ encrypted: ephemeral public key || MAC || ciphertext }`, no `iv`
 * - decrypt, `keyAgreement: { keyId, externalPublicJwk }` + `decryption.iv` -> `crypto_box_open_easy`
 * - decrypt, `keyAgreement: { keyId }` -> `crypto_box_seal_open` (an `iv` is then ignored)
 *
 * `keyId` names a stored private OKP JWK: Ed25519 (the DIDComm v1 case; converted to X25519 as
 * libsodium's `crypto_sign_ed25519_sk_to_curve25519` does) or X25519 (used as is). The JWK's
 * `alg`, `use` and `key_ops` must allow `ECDH-HSALSA20` key derivation, as in Credo's Askar KMS.
 * `externalPublicJwk` must be an OKP X25519 public JWK (Credo converts Ed25519 verkeys before
 * calling). All failures throw `Kms.KeyManagementError` or a subclass:
 * `KeyManagementKeyNotFoundError` for an unknown `keyId`, `KeyManagementAlgorithmNotSupportedError`
 * for half of the pair or a key of another type, `KeyManagementError` for a box that does not
 * authenticate (wrong key, tampered data) or malformed input.
 *
 * The backend name stays `'node'`: keys are stored exactly as `NodeKeyManagementService` stores
 * them and its own errors name `'node'`, so this is the node backend with one more algorithm pair,
 * and an agent can move back to the upstream class (should it gain this pair) without touching
 * its configuration. Register it as the only backend, or first, in
 * `new Kms.KeyManagementModule({ backends: [kms] })`.
 */
export class ParleyKeyManagementService extends NodeKeyManagementService {
  readonly #storage: NodeKeyManagementStorage

  /**
   * @param storage where private JWKs live, partitioned by `agentContext.contextCorrelationId`
   *   (e.g. `EncryptedKeyStorage`, or `NodeInMemoryKeyManagementStorage` in tests)
   */
  constructor(storage: NodeKeyManagementStorage) {
    super(storage)
    this.#storage = storage
  }

  /**
   * Creates a key as `NodeKeyManagementService` does, except Ed25519 and X25519 keys (every DID
   * and DIDComm key): 32 random bytes imported into OpenSSL (`okpPrivateKey`), wiped once
   * imported, and stored as the same private JWK. Node's own key generation, which Credo uses,
   * leaves a job object for the garbage collector, and on Node 20 a collection of one during any
   * JWK export can deadlock the process (see `boxSeal`, cryptoBox.ts).
   *
   * @throws Kms.KeyManagementError (or a subclass) on any failure; a `keyId` already used throws
   *   as in `importKey`
   */
  override async createKey<Type extends Kms.KmsCreateKeyType>(
    agentContext: AgentContext,
    options: Kms.KmsCreateKeyOptions<Type>,
  ): Promise<Kms.KmsCreateKeyReturn<Type>> {
    const { type } = options
    if (type.kty !== 'OKP' || (type.crv !== 'Ed25519' && type.crv !== 'X25519')) return super.createKey(agentContext, options)
    const secret = randomBytes(32)
    let privateJwk: Kms.KmsJwkPrivateOkp
    try {
      privateJwk = {
        ...(okpPrivateKey(type.crv, secret).export({ format: 'jwk' }) as Kms.KmsJwkPrivateOkp),
        kid: options.keyId ?? randomUUID(),
      }
    } finally {
      secret.fill(0)
    }
    const { keyId, publicJwk } = await this.importKey(agentContext, { privateJwk })
    // `Type` is an OKP type here, which TypeScript does not narrow a type parameter to
    return { keyId, publicJwk } as unknown as Kms.KmsCreateKeyReturn<Type>
  }

  /**
   * Node's answer, plus: encrypt/decrypt are supported with the pair `ECDH-HSALSA20` +
   * `XSALSA20-POLY1305`, and not with either half alone.
   */
  override isOperationSupported(agentContext: AgentContext, operation: Kms.KmsOperation): boolean {
    if (operation.operation === 'encrypt' && touchesBox(operation.keyAgreement, operation.encryption)) {
      return isBox(operation.keyAgreement, operation.encryption)
    }
    if (operation.operation === 'decrypt' && touchesBox(operation.keyAgreement, operation.decryption)) {
      return isBox(operation.keyAgreement, operation.decryption)
    }
    return super.isOperationSupported(agentContext, operation)
  }

  /**
   * Encrypts. NaCl authcrypt / anoncrypt for `ECDH-HSALSA20` + `XSALSA20-POLY1305` (see the class
   * comment), otherwise `NodeKeyManagementService.encrypt`.
   *
   * @throws Kms.KeyManagementError (or a subclass) on any failure
   */
  override async encrypt(agentContext: AgentContext, options: Kms.KmsEncryptOptions): Promise<Kms.KmsEncryptReturn> {
    const { key, encryption, data } = options
    const keyAgreement = key.keyAgreement
    if (keyAgreement?.algorithm === BOX_KEY_AGREEMENT && encryption.algorithm === BOX_CIPHER) {
      return await this.#boxEncrypt(agentContext, keyAgreement, encryption.iv, data)
    }
    if (touchesBox(keyAgreement, encryption)) throw this.#pairError(keyAgreement, encryption)
    return await super.encrypt(agentContext, options)
  }

  /**
   * Decrypts. NaCl box / sealed box opening for `ECDH-HSALSA20` + `XSALSA20-POLY1305` (see the
   * class comment), otherwise `NodeKeyManagementService.decrypt`.
   *
   * @throws Kms.KeyManagementError (or a subclass) on any failure, including a box that does not
   *   authenticate
   */
  override async decrypt(agentContext: AgentContext, options: Kms.KmsDecryptOptions): Promise<Kms.KmsDecryptReturn> {
    const { key, decryption, encrypted } = options
    const keyAgreement = key.keyAgreement
    if (keyAgreement?.algorithm === BOX_KEY_AGREEMENT && decryption.algorithm === BOX_CIPHER) {
      return await this.#boxDecrypt(agentContext, keyAgreement, decryption.iv, encrypted)
    }
    if (touchesBox(keyAgreement, decryption)) throw this.#pairError(keyAgreement, decryption)
    return await super.decrypt(agentContext, options)
  }

  async #boxEncrypt(
    agentContext: AgentContext,
    keyAgreement: EncryptKeyAgreement,
    iv: Uint8Array | undefined,
    data: Uint8Array,
  ): Promise<Kms.KmsEncryptReturn> {
    const recipientPublicKey = this.#x25519PublicKey(keyAgreement.externalPublicJwk)
    if (!keyAgreement.keyId) {
      if (iv) {
        throw new Kms.KeyManagementError(
          `An iv cannot be given for ${BOX_KEY_AGREEMENT} anonymous encryption (sealed box): its nonce is derived from the keys`,
        )
      }
      return this.#wrapFailure('encrypting (sealed box)', () => ({ encrypted: boxSeal(data, recipientPublicKey) }))
    }

    const nonce = iv ? Uint8Array.from(iv) : crypto.getRandomValues(new Uint8Array(BOX_NONCE_BYTES))
    if (nonce.length !== BOX_NONCE_BYTES) {
      throw new Kms.KeyManagementError(`The iv for ${BOX_CIPHER} must be ${BOX_NONCE_BYTES} bytes, got ${nonce.length}`)
    }
    const secretKey = await this.#x25519SecretKey(agentContext, keyAgreement.keyId)
    try {
      return this.#wrapFailure('encrypting (box)', () => ({
        encrypted: boxEasy(data, nonce, recipientPublicKey, secretKey),
        iv: nonce,
      }))
    } finally {
      secretKey.fill(0)
    }
  }

  async #boxDecrypt(
    agentContext: AgentContext,
    keyAgreement: DecryptKeyAgreement,
    iv: Uint8Array | undefined,
    encrypted: Uint8Array,
  ): Promise<Kms.KmsDecryptReturn> {
    const senderPublicKey = keyAgreement.externalPublicJwk ? this.#x25519PublicKey(keyAgreement.externalPublicJwk) : undefined
    if (senderPublicKey && !iv) {
      throw new Kms.KeyManagementError(
        `Missing iv (the ${BOX_NONCE_BYTES}-byte nonce) for ${BOX_KEY_AGREEMENT} decryption with a sender key`,
      )
    }
    if (senderPublicKey && iv && iv.length !== BOX_NONCE_BYTES) {
      throw new Kms.KeyManagementError(`The iv for ${BOX_CIPHER} must be ${BOX_NONCE_BYTES} bytes, got ${iv.length}`)
    }

    const secretKey = await this.#x25519SecretKey(agentContext, keyAgreement.keyId)
    try {
      if (senderPublicKey && iv) {
        return this.#wrapFailure('decrypting (box)', () => ({
          data: boxOpenEasy(encrypted, iv, senderPublicKey, secretKey),
        }))
      }
      return this.#wrapFailure('decrypting (sealed box)', () => ({ data: boxSealOpen(encrypted, secretKey) }))
    } finally {
      secretKey.fill(0)
    }
  }

  /** Runs a box operation, turning any failure into a KeyManagementError with a clear message. */
  #wrapFailure<T>(what: string, operation: () => T): T {
    try {
      return operation()
    } catch (error) {
      if (error instanceof Kms.KeyManagementError) throw error
      if (error instanceof BoxOpenError) {
        throw new Kms.KeyManagementError(`Error ${what} with ${BOX_KEY_AGREEMENT}: ${error.message}`, { cause: error })
      }
      const cause = error instanceof Error ? error : undefined
      throw new Kms.KeyManagementError(`Error ${what} with ${BOX_KEY_AGREEMENT}`, { cause })
    }
  }

  /** The raw X25519 public key of an external public JWK, after Credo's usage checks. */
  #x25519PublicKey(jwk: Kms.KmsJwkPublic): Uint8Array<ArrayBuffer> {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'X25519') {
      throw new Kms.KeyManagementAlgorithmNotSupportedError(
        `${BOX_KEY_AGREEMENT} with an external ${Kms.getJwkHumanDescription(jwk)}; expected an OKP X25519 public key`,
        this.backend,
      )
    }
    Kms.assertAllowedKeyDerivationAlgForKey(jwk, BOX_KEY_AGREEMENT)
    Kms.assertKeyAllowsDerive(jwk)
    const publicKey = bytesFromBase64Url(jwk.x)
    if (publicKey.length !== BOX_KEY_BYTES) {
      throw new Kms.KeyManagementError(`X25519 public key must be ${BOX_KEY_BYTES} bytes, got ${publicKey.length}`)
    }
    return publicKey
  }

  /** The X25519 secret key for stored key `keyId` (Ed25519 converted); the caller wipes it. */
  async #x25519SecretKey(agentContext: AgentContext, keyId: string): Promise<Uint8Array<ArrayBuffer>> {
    const privateJwk = await this.#storage.get(agentContext, keyId)
    if (!privateJwk) throw new Kms.KeyManagementKeyNotFoundError(keyId, [this.backend])
    if (privateJwk.kty !== 'OKP' || (privateJwk.crv !== 'Ed25519' && privateJwk.crv !== 'X25519')) {
      throw new Kms.KeyManagementAlgorithmNotSupportedError(
        `${BOX_KEY_AGREEMENT} with key '${keyId}' (${Kms.getJwkHumanDescription(privateJwk)}); expected an OKP Ed25519 or X25519 key`,
        this.backend,
      )
    }
    Kms.assertAllowedKeyDerivationAlgForKey(privateJwk, BOX_KEY_AGREEMENT)
    Kms.assertKeyAllowsDerive(privateJwk)

    const d = bytesFromBase64Url(privateJwk.d)
    if (d.length !== BOX_KEY_BYTES) {
      d.fill(0)
      throw new Kms.KeyManagementError(`Private key '${keyId}' must be ${BOX_KEY_BYTES} bytes, got ${d.length}`)
    }
    if (privateJwk.crv === 'X25519') return d
    try {
      return ed25519SecretToX25519(d)
    } finally {
      d.fill(0)
    }
  }

  #pairError(keyAgreement: { algorithm: string } | undefined, cipher: { algorithm: string }): Kms.KeyManagementError {
    return new Kms.KeyManagementAlgorithmNotSupportedError(
      `key agreement '${keyAgreement?.algorithm ?? 'none'}' with encryption '${cipher.algorithm}'; ` +
        `${BOX_KEY_AGREEMENT} and ${BOX_CIPHER} are only supported together`,
      this.backend,
    )
  }
}
