/** Golden tests of issuance on the anoncreds-rs vectors (TimoGlastra/anoncreds-w3c-test-vectors). */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  BlindedLinkSecretProofError,
  credentialContext,
  processCredentialSignature,
  signCredential,
  SignatureCorrectnessProofError,
  verifyBlindedLinkSecretProof,
  verifyKeyCorrectnessProof,
  type CredentialKeyCorrectnessProof,
  type CredentialPrimaryPrivateKey,
  type CredentialPrimaryPublicKey,
  type BlindedCredentialSecrets,
  type BlindedCredentialSecretsCorrectnessProof,
  type PrimaryCredentialSignature,
  type SignatureCorrectnessProof,
} from '../../src/anoncreds/issuance/index.ts'
import { modPow } from '../../src/anoncreds/math/index.ts'
import { VECTORS_DIR } from './support/vectors.ts'

const VECTORS = VECTORS_DIR
const read = <T>(name: string): T => JSON.parse(readFileSync(`${VECTORS}/${name}`, 'utf8')) as T

const definition = read<{
  credentialDefinition: { value: { primary: CredentialPrimaryPublicKey } }
  credentialDefinitionPrivate: { value: { p_key: CredentialPrimaryPrivateKey } }
  keyCorrectnessProof: CredentialKeyCorrectnessProof
}>('anoncreds-credential-definition.json')
const { linkSecret } = read<{ linkSecret: string }>('anoncreds-link-secret.json')
const request = read<{
  credentialRequest: {
    entropy: string
    blinded_ms: BlindedCredentialSecrets
    blinded_ms_correctness_proof: BlindedCredentialSecretsCorrectnessProof
    nonce: string
  }
  credentialRequestMetadata: { link_secret_blinding_data: { v_prime: string }; nonce: string }
}>('anoncreds-credential-request.json')
const offer = read<{ nonce: string; key_correctness_proof: CredentialKeyCorrectnessProof }>('anoncreds-credential-offer.json')
const credential = read<{
  values: Record<string, { raw: string; encoded: string }>
  signature: { p_credential: PrimaryCredentialSignature; r_credential: { i: number } }
  signature_correctness_proof: SignatureCorrectnessProof
}>('anoncreds-legacy-credential.json')

const primary = definition.credentialDefinition.value.primary
const privateKey = definition.credentialDefinitionPrivate.value.p_key
const vPrime = request.credentialRequestMetadata.link_secret_blinding_data.v_prime
const encodedValues = Object.fromEntries(Object.entries(credential.values).map(([name, { encoded }]) => [name, encoded]))
const bump = (decimal: string): string => (BigInt(decimal) + 1n).toString()

describe('issuance on the anoncreds-rs vectors', () => {
  it('the private key holds the Sophie Germain halves: n = (2p+1)(2q+1)', () => {
    const p = BigInt(privateKey.p)
    const q = BigInt(privateKey.q)
    expect((2n * p + 1n) * (2n * q + 1n)).toBe(BigInt(primary.n))
    expect(p.toString(2).length).toBe(1024)
    expect(q.toString(2).length).toBe(1024)
  })

  it('verifies the key correctness proof and refuses tampered ones', () => {
    expect(verifyKeyCorrectnessProof(primary, definition.keyCorrectnessProof)).toBe(true)
    expect(verifyKeyCorrectnessProof(primary, offer.key_correctness_proof)).toBe(true)
    const kcp = definition.keyCorrectnessProof
    expect(verifyKeyCorrectnessProof(primary, { ...kcp, c: bump(kcp.c) })).toBe(false)
    expect(verifyKeyCorrectnessProof(primary, { ...kcp, xz_cap: bump(kcp.xz_cap) })).toBe(false)
    const [first, ...rest] = kcp.xr_cap
    expect(verifyKeyCorrectnessProof(primary, { ...kcp, xr_cap: [[first![0], bump(first![1])], ...rest] })).toBe(false)
    // hashing order is the proof's own order: a reordered list no longer verifies
    expect(verifyKeyCorrectnessProof(primary, { ...kcp, xr_cap: [...rest, first!] })).toBe(false)
    // a missing attribute (other than master_secret) or an unknown one is refused
    expect(verifyKeyCorrectnessProof(primary, { ...kcp, xr_cap: kcp.xr_cap.filter(([name]) => name !== 'age') })).toBe(false)
    expect(verifyKeyCorrectnessProof(primary, { ...kcp, xr_cap: [...kcp.xr_cap, ['extra', '1']] })).toBe(false)
  })

  it('recomputes U from the link secret and v_prime', () => {
    const n = BigInt(primary.n)
    const u = (modPow(BigInt(primary.s), BigInt(vPrime), n) * modPow(BigInt(primary.r.master_secret!), BigInt(linkSecret), n)) % n
    expect(u.toString()).toBe(request.credentialRequest.blinded_ms.u)
  })

  it('verifies the blinded link secret proof with the offer nonce only', () => {
    const input = {
      primary,
      blinded_ms: request.credentialRequest.blinded_ms,
      blinded_ms_correctness_proof: request.credentialRequest.blinded_ms_correctness_proof,
    }
    expect(verifyBlindedLinkSecretProof({ ...input, offerNonce: offer.nonce })).toBe(true)
    expect(verifyBlindedLinkSecretProof({ ...input, offerNonce: request.credentialRequest.nonce })).toBe(false)
    const proof = input.blinded_ms_correctness_proof
    expect(
      verifyBlindedLinkSecretProof({
        ...input,
        offerNonce: offer.nonce,
        blinded_ms_correctness_proof: { ...proof, v_dash_cap: bump(proof.v_dash_cap) },
      }),
    ).toBe(false)
  })

  it('derives the credential m_2 from the request entropy and the revocation index', () => {
    const { p_credential, r_credential } = credential.signature
    expect(credentialContext(request.credentialRequest.entropy, r_credential.i).toString()).toBe(p_credential.m_2)
    expect(credentialContext(request.credentialRequest.entropy).toString()).not.toBe(p_credential.m_2)
  })

  it('the vector signature satisfies A^e = Q and its correctness proof verifies with the request nonce', () => {
    // The vector credential is as the issuer sent it: its v is v'' (A^e = Q holds only with v' + v'').
    const { p_credential } = credential.signature
    expect(BigInt(p_credential.v).toString(2).length).toBe(2724)
    const input = {
      primary,
      p_credential,
      signature_correctness_proof: credential.signature_correctness_proof,
      vPrime,
      requestNonce: request.credentialRequest.nonce,
      encodedValues,
      linkSecret,
    }
    expect(processCredentialSignature(input)).toEqual({ ...p_credential, v: (BigInt(p_credential.v) + BigInt(vPrime)).toString() })
    // treated as already processed (v' not added), the signature equation fails
    expect(() => processCredentialSignature({ ...input, vPrime: '0' })).toThrow(/A\^e/)
    expect(() => processCredentialSignature({ ...input, requestNonce: offer.nonce })).toThrow(SignatureCorrectnessProofError)
    expect(() => processCredentialSignature({ ...input, linkSecret: bump(linkSecret) })).toThrow(SignatureCorrectnessProofError)
    expect(() => processCredentialSignature({ ...input, encodedValues: { ...encodedValues, age: '29' } })).toThrow(/A\^e/)
    const scp = credential.signature_correctness_proof
    expect(() => processCredentialSignature({ ...input, signature_correctness_proof: { ...scp, se: bump(scp.se) } })).toThrow(/challenge/)
    expect(() => processCredentialSignature({ ...input, signature_correctness_proof: { ...scp, c: bump(scp.c) } })).toThrow(/challenge/)
  })

  it('signs the vector request with the vector private key; the holder processes it with the vector metadata', () => {
    const vectorRequest = {
      primary,
      privateKey,
      blinded_ms: request.credentialRequest.blinded_ms,
      blinded_ms_correctness_proof: request.credentialRequest.blinded_ms_correctness_proof,
      offerNonce: offer.nonce,
      requestNonce: request.credentialRequest.nonce,
      proverId: request.credentialRequest.entropy,
      encodedValues,
    }
    const signed = signCredential(vectorRequest)
    const { m_2, e, v } = signed.p_credential
    expect(m_2).toBe(credentialContext(request.credentialRequest.entropy).toString())
    expect(BigInt(e) >= 2n ** 596n && BigInt(e) < 2n ** 596n + 2n ** 119n).toBe(true)
    expect(BigInt(v).toString(2).length).toBe(2724)

    const processed = processCredentialSignature({
      primary,
      p_credential: signed.p_credential,
      signature_correctness_proof: signed.signature_correctness_proof,
      vPrime,
      requestNonce: request.credentialRequest.nonce,
      encodedValues,
      linkSecret,
    })
    expect(BigInt(processed.v)).toBe(BigInt(v) + BigInt(vPrime))

    // with the revocation index the vector credential has, m_2 is the vector's
    const withIndex = signCredential({ ...vectorRequest, revocationIndex: credential.signature.r_credential.i })
    expect(withIndex.p_credential.m_2).toBe(credential.signature.p_credential.m_2)
  })

  it('refuses to sign when the blinded proof was made for another nonce', () => {
    expect(() =>
      signCredential({
        primary,
        privateKey,
        blinded_ms: request.credentialRequest.blinded_ms,
        blinded_ms_correctness_proof: request.credentialRequest.blinded_ms_correctness_proof,
        offerNonce: request.credentialRequest.nonce,
        requestNonce: request.credentialRequest.nonce,
        proverId: request.credentialRequest.entropy,
        encodedValues,
      }),
    ).toThrow(BlindedLinkSecretProofError)
  })
})
