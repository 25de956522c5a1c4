/**
 * NaCl `crypto_box` as DIDComm v1 envelopes use it, byte-compatible with libsodium:
 *
 * - authenticated box: `crypto_box_easy` / `crypto_box_open_easy`
 *   (X25519 + HSalsa20 -> XSalsa20-Poly1305, https://nacl.cr.yp.to/box.html)
 * - sealed box: `crypto_box_seal` / `crypto_box_seal_open`
 *   (https://doc.libsodium.org/public-key_cryptography/sealed_boxes)
 * - Ed25519 -> X25519 key conversion: `crypto_sign_ed25519_{sk,pk}_to_curve25519`
 *
 * Pure functions over raw 32-byte keys: X25519 in Node's OpenSSL (`x25519SharedSecret`,
 * `x25519PublicKey`), the rest on the audited @noble libraries; key storage and JWKs are the
 * KMS's business (`ParleyKeyManagementService`).
 */
import { Buffer } from 'node:buffer'
import { createPrivateKey, createPublicKey, diffieHellman, randomBytes, type KeyObject } from 'node:crypto'
import { hsalsa, xsalsa20poly1305 } from '@noble/ciphers/salsa.js'
import { ed25519 } from '@noble/curves/ed25519.js'
import { blake2b } from '@noble/hashes/blake2.js'

/** Bytes of a `crypto_box` nonce (XSalsa20's extended nonce). */
export const BOX_NONCE_BYTES = 24
/** Bytes of the Poly1305 tag that leads every box (libsodium's combined form). */
export const BOX_MAC_BYTES = 16
/** Bytes of an X25519 public or secret key. */
export const BOX_KEY_BYTES = 32
/** Overhead of a sealed box over its plaintext: ephemeral public key + MAC. */
export const SEAL_OVERHEAD_BYTES = BOX_KEY_BYTES + BOX_MAC_BYTES

/** A box failed to open: wrong key pair, wrong nonce, or a tampered or truncated ciphertext. */
export class BoxOpenError extends Error {
  override name = 'BoxOpenError'
}

const SIGMA = new TextEncoder().encode('expand 32-byte k')

/**
 * Node requires a private JWK's `x` but derives the public key from `d` and ignores it; this
 * fills it (the keys are imported as JWKs because OpenSSL 3's DER decoders cost about 0.8 ms a
 * key, against 0.05 ms for a JWK).
 */
const UNUSED_X = 'A'.repeat(43)

const base64url = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64url')

/** An X25519 secret key as an OpenSSL key (RFC 7748 section 5: OpenSSL clamps it, as libsodium does). */
function x25519PrivateKey(secretKey: Uint8Array): KeyObject {
  return createPrivateKey({ key: { kty: 'OKP', crv: 'X25519', d: base64url(secretKey), x: UNUSED_X }, format: 'jwk' })
}

/**
 * X25519(privateKey, publicKey) (`crypto_scalarmult`), in Node's OpenSSL: about 0.16 ms against
 * 2.1 ms for @noble/curves on the 2-core build machine (bench/README.md, "chat-round-trip").
 *
 * @throws Error when the result is all zero (a low-order public key; OpenSSL refuses to derive
 *   it, as libsodium does)
 */
function x25519SharedSecret(privateKey: KeyObject, publicKey: Uint8Array): Uint8Array {
  const peer = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: base64url(publicKey) }, format: 'jwk' })
  // only the derivation itself fails on a low-order key; import errors keep their own message
  try {
    return diffieHellman({ privateKey, publicKey: peer })
  } catch (error) {
    throw new Error('X25519 gave the all-zero shared secret: the public key has a low order', { cause: error })
  }
}

/** The 32-byte public key of an X25519 OpenSSL key (private or public). */
function publicKeyBytes(key: KeyObject): Uint8Array<ArrayBuffer> {
  const { x } = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' })
  return Uint8Array.from(Buffer.from(x!, 'base64url'))
}

/** A word view over a fresh copy of `bytes`: aligned, and safe to wipe. */
function words(bytes: Uint8Array): Uint32Array<ArrayBuffer> {
  return new Uint32Array(Uint8Array.from(bytes).buffer)
}

function assertLength(name: string, bytes: Uint8Array, length: number): void {
  if (bytes.length !== length) throw new RangeError(`${name} must be ${length} bytes, got ${bytes.length}`)
}

/**
 * `crypto_box_beforenm`: the 32-byte XSalsa20-Poly1305 key shared by `secretKey`'s owner and
 * `publicKey`'s owner, HSalsa20(X25519(secretKey, publicKey), 0^16).
 *
 * @param publicKey the peer's X25519 public key, 32 bytes
 * @param secretKey our X25519 secret key, 32 bytes
 * @throws RangeError on a wrong key length; Error when the X25519 result is all zero (a
 *   low-order peer key, which libsodium rejects too)
 */
export function boxBeforeNm(publicKey: Uint8Array, secretKey: Uint8Array): Uint8Array<ArrayBuffer> {
  assertLength('secret key', secretKey, BOX_KEY_BYTES)
  return sharedBoxKey(publicKey, x25519PrivateKey(secretKey))
}

/** `boxBeforeNm` with our secret key already imported (each import costs about 0.05 ms). */
function sharedBoxKey(publicKey: Uint8Array, privateKey: KeyObject): Uint8Array<ArrayBuffer> {
  assertLength('public key', publicKey, BOX_KEY_BYTES)
  const shared = x25519SharedSecret(privateKey, publicKey)
  const keyWords = words(shared)
  const out = new Uint32Array(8)
  hsalsa(words(SIGMA), keyWords, new Uint32Array(4), out)
  shared.fill(0)
  keyWords.fill(0)
  return new Uint8Array(out.buffer)
}

/**
 * `crypto_box_easy`: encrypts and authenticates `message` from `secretKey`'s owner to
 * `publicKey`'s owner.
 *
 * @param message plaintext, any length
 * @param nonce 24 bytes, never reused for the same key pair (random is safe at this length)
 * @param publicKey recipient's X25519 public key, 32 bytes
 * @param secretKey sender's X25519 secret key, 32 bytes
 * @returns MAC (16 bytes) followed by the ciphertext (`message.length` bytes)
 * @throws RangeError on a wrong nonce or key length
 */
export function boxEasy(message: Uint8Array, nonce: Uint8Array, publicKey: Uint8Array, secretKey: Uint8Array): Uint8Array<ArrayBuffer> {
  assertLength('secret key', secretKey, BOX_KEY_BYTES)
  return boxWithKey(message, nonce, publicKey, x25519PrivateKey(secretKey))
}

/** `boxEasy` with the sender's secret key already imported. */
function boxWithKey(message: Uint8Array, nonce: Uint8Array, publicKey: Uint8Array, privateKey: KeyObject): Uint8Array<ArrayBuffer> {
  assertLength('nonce', nonce, BOX_NONCE_BYTES)
  const key = sharedBoxKey(publicKey, privateKey)
  try {
    return Uint8Array.from(xsalsa20poly1305(key, nonce).encrypt(message))
  } finally {
    key.fill(0)
  }
}

/**
 * `crypto_box_open_easy`: verifies and decrypts a box made by `boxEasy`.
 *
 * @param box MAC followed by ciphertext, at least 16 bytes
 * @param nonce the 24-byte nonce the box was made with
 * @param publicKey sender's X25519 public key, 32 bytes
 * @param secretKey recipient's X25519 secret key, 32 bytes
 * @returns the plaintext
 * @throws BoxOpenError when the box does not authenticate under these keys and nonce;
 *   RangeError on a wrong nonce or key length
 */
export function boxOpenEasy(box: Uint8Array, nonce: Uint8Array, publicKey: Uint8Array, secretKey: Uint8Array): Uint8Array<ArrayBuffer> {
  assertLength('secret key', secretKey, BOX_KEY_BYTES)
  return openWithKey(box, nonce, publicKey, x25519PrivateKey(secretKey))
}

/** `boxOpenEasy` with the recipient's secret key already imported. */
function openWithKey(box: Uint8Array, nonce: Uint8Array, publicKey: Uint8Array, privateKey: KeyObject): Uint8Array<ArrayBuffer> {
  assertLength('nonce', nonce, BOX_NONCE_BYTES)
  if (box.length < BOX_MAC_BYTES) throw new BoxOpenError(`box is ${box.length} bytes, shorter than its MAC`)
  const key = sharedBoxKey(publicKey, privateKey)
  try {
    return Uint8Array.from(xsalsa20poly1305(key, nonce).decrypt(box))
  } catch (error) {
    throw new BoxOpenError('box failed authentication: wrong key pair, wrong nonce or tampered ciphertext', {
      cause: error,
    })
  } finally {
    key.fill(0)
  }
}

/** The sealed-box nonce, BLAKE2b-192(ephemeralPublicKey || recipientPublicKey). */
function sealNonce(ephemeralPublicKey: Uint8Array, recipientPublicKey: Uint8Array): Uint8Array {
  const input = new Uint8Array(2 * BOX_KEY_BYTES)
  input.set(ephemeralPublicKey, 0)
  input.set(recipientPublicKey, BOX_KEY_BYTES)
  return blake2b(input, { dkLen: BOX_NONCE_BYTES })
}

/**
 * `crypto_box_seal`: anonymous encryption to `recipientPublicKey` under a fresh ephemeral
 * X25519 key pair: 32 random bytes imported into OpenSSL, wiped once imported, the key dropped
 * afterwards. Not `generateKeyPairSync`: Node 20 can deadlock when a garbage collection during
 * the JWK export of such a key collects the key-generation job that made it (its destructor
 * takes the lock the export holds: agent-node hung once so, in a benchmark, 2026-11-29).
 *
 * @param message plaintext, any length
 * @param recipientPublicKey X25519 public key, 32 bytes
 * @returns ephemeral public key (32 bytes) || MAC (16 bytes) || ciphertext
 * @throws RangeError on a wrong key length
 */
export function boxSeal(message: Uint8Array, recipientPublicKey: Uint8Array): Uint8Array<ArrayBuffer> {
  assertLength('recipient public key', recipientPublicKey, BOX_KEY_BYTES)
  const secret = randomBytes(BOX_KEY_BYTES)
  const ephemeral = x25519PrivateKey(secret)
  secret.fill(0)
  const ephemeralPublicKey = publicKeyBytes(ephemeral)
  const nonce = sealNonce(ephemeralPublicKey, recipientPublicKey)
  const box = boxWithKey(message, nonce, recipientPublicKey, ephemeral)
  const sealed = new Uint8Array(BOX_KEY_BYTES + box.length)
  sealed.set(ephemeralPublicKey, 0)
  sealed.set(box, BOX_KEY_BYTES)
  return sealed
}

/**
 * `crypto_box_seal_open`: opens a sealed box addressed to the owner of `recipientSecretKey`
 * (the matching public key is derived from it; the key is imported once for both).
 *
 * @param sealed ephemeral public key || MAC || ciphertext, at least 48 bytes
 * @param recipientSecretKey X25519 secret key, 32 bytes
 * @returns the plaintext
 * @throws BoxOpenError when the sealed box is too short or does not authenticate under this key
 */
export function boxSealOpen(sealed: Uint8Array, recipientSecretKey: Uint8Array): Uint8Array<ArrayBuffer> {
  assertLength('recipient secret key', recipientSecretKey, BOX_KEY_BYTES)
  if (sealed.length < SEAL_OVERHEAD_BYTES) {
    throw new BoxOpenError(`sealed box is ${sealed.length} bytes, shorter than its ${SEAL_OVERHEAD_BYTES}-byte overhead`)
  }
  const ephemeralPublicKey = sealed.subarray(0, BOX_KEY_BYTES)
  const privateKey = x25519PrivateKey(recipientSecretKey)
  const nonce = sealNonce(ephemeralPublicKey, publicKeyBytes(privateKey))
  try {
    return openWithKey(sealed.subarray(BOX_KEY_BYTES), nonce, ephemeralPublicKey, privateKey)
  } catch (error) {
    // A low-order ephemeral key makes X25519 fail before the MAC check; same meaning to callers.
    if (error instanceof BoxOpenError) throw error
    throw new BoxOpenError('sealed box failed to open: invalid ephemeral public key', { cause: error })
  }
}

/**
 * `crypto_sign_ed25519_sk_to_curve25519`: the X25519 secret key of an Ed25519 key, the clamped
 * first half of SHA-512(seed) (RFC 8032 section 5.1.5, RFC 7748 section 5).
 *
 * @param seed the 32-byte Ed25519 private key (JWK `d`; libsodium's 64-byte secret key is
 *   seed || public key, pass its first 32 bytes)
 * @returns the 32-byte X25519 secret key
 * @throws Error on a wrong seed length
 */
export function ed25519SecretToX25519(seed: Uint8Array): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(ed25519.utils.toMontgomerySecret(seed))
}

/**
 * `crypto_sign_ed25519_pk_to_curve25519`: the X25519 public key (Montgomery u = (1 + y) / (1 - y))
 * of an Ed25519 public key.
 *
 * @param publicKey 32-byte Ed25519 public key (JWK `x`)
 * @returns the 32-byte X25519 public key
 * @throws Error when `publicKey` is not a valid Ed25519 point encoding
 */
export function ed25519PublicToX25519(publicKey: Uint8Array): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(ed25519.utils.toMontgomery(publicKey))
}

/**
 * The X25519 public key of an X25519 secret key (`crypto_scalarmult_base`), in Node's OpenSSL.
 *
 * @param secretKey 32 bytes
 * @returns 32 bytes
 */
export function x25519PublicKey(secretKey: Uint8Array): Uint8Array<ArrayBuffer> {
  return publicKeyBytes(x25519PrivateKey(secretKey))
}
