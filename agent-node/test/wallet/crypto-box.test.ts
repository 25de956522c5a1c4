/**
 * The X25519 underneath the NaCl box (`wallet/kms/cryptoBox.ts`, in Node's OpenSSL) against
 * libsodium: public keys and shared box keys equal `crypto_scalarmult_base` and
 * `crypto_box_beforenm` on random keys, and low-order public keys are refused as libsodium
 * refuses them. The boxes themselves are checked byte for byte in kms.test.ts.
 */
import sodium from 'libsodium-wrappers'
import { beforeAll, describe, expect, it } from 'vitest'
import { BoxOpenError, boxBeforeNm, boxSeal, boxSealOpen, SEAL_OVERHEAD_BYTES, x25519PublicKey } from '../../src/wallet/kms/cryptoBox.ts'

/** Curve25519 points of small order (u = 0 and u = 1, RFC 7748 section 6.1's warning). */
const LOW_ORDER = [new Uint8Array(32), Uint8Array.from([1, ...new Array(31).fill(0)])]

describe('X25519 in the NaCl box', () => {
  beforeAll(async () => {
    await sodium.ready
  })

  it('public keys and box keys equal libsodium on random keys (secret keys clamped alike)', () => {
    for (let i = 0; i < 20; i++) {
      const ours = sodium.crypto_box_keypair()
      const theirs = sodium.crypto_box_keypair()
      expect(x25519PublicKey(ours.privateKey)).toEqual(ours.publicKey)
      // an unclamped secret key: both clamp it the same way
      const raw = sodium.randombytes_buf(32)
      raw[0]! |= 7
      raw[31]! |= 0xc0
      expect(x25519PublicKey(raw)).toEqual(sodium.crypto_scalarmult_base(raw))
      expect(boxBeforeNm(theirs.publicKey, ours.privateKey)).toEqual(sodium.crypto_box_beforenm(theirs.publicKey, ours.privateKey))
    }
  })

  it('seals each box under a fresh ephemeral key, and libsodium opens it', () => {
    const recipient = sodium.crypto_box_keypair()
    const message = new TextEncoder().encode('sealed for the recipient')
    const ephemeralKeys = new Set<string>()
    for (let i = 0; i < 20; i++) {
      const sealed = boxSeal(message, recipient.publicKey)
      ephemeralKeys.add(Buffer.from(sealed.subarray(0, 32)).toString('hex'))
      expect(sodium.crypto_box_seal_open(sealed, recipient.publicKey, recipient.privateKey)).toEqual(message)
    }
    expect(ephemeralKeys.size).toBe(20)
  })

  it('refuses a low-order public key, as libsodium does', () => {
    const { privateKey } = sodium.crypto_box_keypair()
    for (const point of LOW_ORDER) {
      expect(() => sodium.crypto_box_beforenm(point, privateKey)).toThrow()
      expect(() => boxBeforeNm(point, privateKey)).toThrow(/low order/)
      // a sealed box whose ephemeral key has a low order does not open, with the box's own error
      const sealed = new Uint8Array(SEAL_OVERHEAD_BYTES + 4)
      sealed.set(point, 0)
      expect(() => boxSealOpen(sealed, privateKey)).toThrow(BoxOpenError)
    }
  })
})
