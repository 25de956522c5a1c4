/** Our own issuer keys: key generation, blinding, signing and processing end to end. */
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { encodeAttributeValue } from '../../src/anoncreds/encoding/index.ts'
import {
  blindLinkSecret,
  BlindedLinkSecretProofError,
  createCredentialKeys,
  InvalidIssuanceInputError,
  KeyCorrectnessProofError,
  processCredentialSignature,
  signCredential,
  SignatureCorrectnessProofError,
  verifyBlindedLinkSecretProof,
  verifyKeyCorrectnessProof,
  type CredentialKeys,
} from '../../src/anoncreds/issuance/index.ts'
import { bitLength, isProbablePrime, modPow } from '../../src/anoncreds/math/index.ts'
import { VECTORS_DIR } from './support/vectors.ts'

const { linkSecret } = JSON.parse(readFileSync(`${VECTORS_DIR}/anoncreds-link-secret.json`, 'utf8')) as { linkSecret: string }
const NAMES = ['name', 'age', 'master_secret', 'height']
const RAW = { name: 'Alex', age: '28', height: '-175' }
const encodedValues = Object.fromEntries(Object.entries(RAW).map(([name, raw]) => [name, encodeAttributeValue(raw)]))
const offerNonce = '664857159402192460950936'
const requestNonce = '504985049177510414131832'
const proverId = 'f6b5e1a4-0e0c-4a57-9bbf-0e2b0a4c8a11'

let keys: CredentialKeys

beforeAll(() => {
  keys = createCredentialKeys(NAMES)
}, 120_000)

describe('issuance round trip on fresh keys', () => {
  it('creates a well-formed key: safe-prime halves, sizes, S a generator of the squares', () => {
    const p = BigInt(keys.privateKey.p)
    const q = BigInt(keys.privateKey.q)
    const n = BigInt(keys.primary.n)
    expect(bitLength(p)).toBe(1024)
    expect(bitLength(q)).toBe(1024)
    expect(isProbablePrime(p, 10) && isProbablePrime(2n * p + 1n, 10)).toBe(true)
    expect((2n * p + 1n) * (2n * q + 1n)).toBe(n)
    const s = BigInt(keys.primary.s)
    expect(modPow(s, p * q, n)).toBe(1n)
    expect(modPow(s, p, n)).not.toBe(1n)
    expect(modPow(s, q, n)).not.toBe(1n)
    expect(Object.keys(keys.primary.r)).toEqual(NAMES)
    expect(keys.keyCorrectnessProof.xr_cap.map(([name]) => name)).toEqual(NAMES)
    for (const value of [keys.primary.z, keys.primary.rctxt, ...Object.values(keys.primary.r)]) expect(BigInt(value) < n).toBe(true)
  })

  it('its key correctness proof verifies, and a tampered one does not', () => {
    expect(verifyKeyCorrectnessProof(keys.primary, keys.keyCorrectnessProof)).toBe(true)
    const kcp = keys.keyCorrectnessProof
    expect(verifyKeyCorrectnessProof(keys.primary, { ...kcp, xz_cap: (BigInt(kcp.xz_cap) + 1n).toString() })).toBe(false)
    const otherZ = { ...keys.primary, z: keys.primary.s }
    expect(verifyKeyCorrectnessProof(otherZ, kcp)).toBe(false)
  })

  it('blinds, signs, processes; wrong nonces and tampered proofs are refused', () => {
    const blinded = blindLinkSecret({ primary: keys.primary, keyCorrectnessProof: keys.keyCorrectnessProof, linkSecret, offerNonce })
    expect(blinded.blinded_ms.hidden_attributes).toEqual(['master_secret'])
    expect(blinded.blinded_ms.ur).toBeNull()
    expect(bitLength(BigInt(blinded.vPrime))).toBeLessThanOrEqual(2128)
    const n = BigInt(keys.primary.n)
    const u =
      (modPow(BigInt(keys.primary.s), BigInt(blinded.vPrime), n) * modPow(BigInt(keys.primary.r.master_secret!), BigInt(linkSecret), n)) % n
    expect(blinded.blinded_ms.u).toBe(u.toString())

    const proofInput = {
      primary: keys.primary,
      blinded_ms: blinded.blinded_ms,
      blinded_ms_correctness_proof: blinded.blinded_ms_correctness_proof,
    }
    expect(verifyBlindedLinkSecretProof({ ...proofInput, offerNonce })).toBe(true)
    expect(verifyBlindedLinkSecretProof({ ...proofInput, offerNonce: requestNonce })).toBe(false)

    const signInput = { ...proofInput, privateKey: keys.privateKey, offerNonce, requestNonce, proverId, encodedValues }
    expect(() => signCredential({ ...signInput, offerNonce: requestNonce })).toThrow(BlindedLinkSecretProofError)
    const tampered = { ...blinded.blinded_ms_correctness_proof, m_caps: { master_secret: '12345' } }
    expect(() => signCredential({ ...signInput, blinded_ms_correctness_proof: tampered })).toThrow(BlindedLinkSecretProofError)
    expect(() => signCredential({ ...signInput, encodedValues: { name: encodedValues.name!, age: '28' } })).toThrow(/height/)
    expect(() => signCredential({ ...signInput, encodedValues: { ...encodedValues, master_secret: '1' } })).toThrow(
      InvalidIssuanceInputError,
    )
    expect(() => signCredential({ ...signInput, encodedValues: { ...encodedValues, unknown: '1' } })).toThrow(/unknown/)

    const signed = signCredential(signInput)
    const processInput = {
      primary: keys.primary,
      p_credential: signed.p_credential,
      signature_correctness_proof: signed.signature_correctness_proof,
      vPrime: blinded.vPrime,
      requestNonce,
      encodedValues,
      linkSecret,
    }
    const processed = processCredentialSignature(processInput)
    expect(BigInt(processed.v)).toBe(BigInt(signed.p_credential.v) + BigInt(blinded.vPrime))
    expect(processed.a).toBe(signed.p_credential.a)

    expect(() => processCredentialSignature({ ...processInput, requestNonce: offerNonce })).toThrow(SignatureCorrectnessProofError)
    const scp = signed.signature_correctness_proof
    expect(() => processCredentialSignature({ ...processInput, signature_correctness_proof: { ...scp, se: '1' } })).toThrow(
      SignatureCorrectnessProofError,
    )
    expect(() => processCredentialSignature({ ...processInput, encodedValues: { ...encodedValues, height: '175' } })).toThrow(
      SignatureCorrectnessProofError,
    )
    expect(() =>
      processCredentialSignature({
        ...processInput,
        p_credential: { ...signed.p_credential, e: (BigInt(signed.p_credential.e) + 2n).toString() },
      }),
    ).toThrow(SignatureCorrectnessProofError)
  })

  it('blinding refuses a key whose correctness proof does not verify', () => {
    const kcp = { ...keys.keyCorrectnessProof, c: '1' }
    expect(() => blindLinkSecret({ primary: keys.primary, keyCorrectnessProof: kcp, linkSecret, offerNonce })).toThrow(
      KeyCorrectnessProofError,
    )
  })

  it('rejects malformed inputs', () => {
    expect(() => createCredentialKeys([])).toThrow(InvalidIssuanceInputError)
    expect(() => createCredentialKeys(['a', 'a'])).toThrow(InvalidIssuanceInputError)
    expect(() => verifyKeyCorrectnessProof({ ...keys.primary, n: ' 15' }, keys.keyCorrectnessProof)).toThrow(InvalidIssuanceInputError)
    expect(() => verifyKeyCorrectnessProof(keys.primary, { ...keys.keyCorrectnessProof, c: '0x10' })).toThrow(InvalidIssuanceInputError)
  })
})
