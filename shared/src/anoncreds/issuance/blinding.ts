/**
 * The holder blinds its link secret for the issuer: U = S^v' · R_ms^ls (mod n), with a
 * Fiat–Shamir proof of knowledge of v' and ls hashed with the credential offer's nonce.
 */
import { hashBigInts, randomBits } from '../math/index.ts'
import { checkKeyCorrectnessProof } from './keyCorrectness.ts'
import { LINK_SECRET_ATTRIBUTE } from '../encoding/index.ts'
import { M_TILDE_BITS, V_PRIME_BITS, V_PRIME_TILDE_BITS } from './constants.ts'
import { parseDecimal, toDecimal } from './decimal.ts'
import { InvalidIssuanceInputError, KeyCorrectnessProofError, NotInvertibleError } from './errors.ts'
import { publicModulus, type Modulus } from './modulus.ts'
import { attributeBase, parsePrimaryKey, type PrimaryKey } from './primaryKey.ts'
import type {
  BlindedCredentialSecrets,
  BlindedCredentialSecretsCorrectnessProof,
  CredentialKeyCorrectnessProof,
  CredentialPrimaryPublicKey,
} from './types.ts'

/** Input of `blindLinkSecret`. */
export interface BlindLinkSecretInput {
  primary: CredentialPrimaryPublicKey
  keyCorrectnessProof: CredentialKeyCorrectnessProof
  /** the link secret, a decimal string */
  linkSecret: string
  /** the credential offer's nonce, a decimal string */
  offerNonce: string
}

/** Output of `blindLinkSecret`. */
export interface BlindedLinkSecret {
  blinded_ms: BlindedCredentialSecrets
  blinded_ms_correctness_proof: BlindedCredentialSecretsCorrectnessProof
  /** v' (decimal string): goes into the request metadata as `link_secret_blinding_data.v_prime` */
  vPrime: string
}

/**
 * Blinds the link secret for a credential request (holder side).
 *
 * Verifies the issuer's key-correctness proof first. Draws v' of 2128 bits and computes
 * U = S^v' · R_master_secret^linkSecret mod n; the correctness proof draws ṽ' (673 bits) and
 * m̃ (593 bits), Ũ = S^ṽ' · R_ms^m̃, c = H(U, Ũ, offerNonce), v_dash_cap = c·v' + ṽ',
 * m_caps.master_secret = c·linkSecret + m̃. No revocation: `ur` is `null`.
 *
 * @returns `{ blinded_ms: { u, ur: null, hidden_attributes: ['master_secret'], committed_attributes: {} },
 *   blinded_ms_correctness_proof: { c, v_dash_cap, m_caps: { master_secret }, r_caps: {} }, vPrime }`
 * @throws KeyCorrectnessProofError when the key-correctness proof does not verify
 * @throws InvalidIssuanceInputError on malformed numbers or a key without `master_secret`
 *
 * Spec: AnonCreds v1 specification, "Credential Request" (blinded link secret and its proof);
 * anoncreds-clsignatures `Prover::blind_credential_secrets`.
 */
export function blindLinkSecret(input: BlindLinkSecretInput): BlindedLinkSecret {
  const key = parsePrimaryKey(input.primary)
  if (!checkKeyCorrectnessProof(key, input.keyCorrectnessProof)) {
    throw new KeyCorrectnessProofError('the credential definition key correctness proof does not verify')
  }
  const linkSecret = parseDecimal(input.linkSecret, 'linkSecret')
  const nonce = parseDecimal(input.offerNonce, 'offerNonce')
  const rMs = attributeBase(key, LINK_SECRET_ATTRIBUTE)
  const modulus = publicModulus(key.n)

  const vPrime = randomBits(V_PRIME_BITS)
  const u = (modulus.pow(key.s, vPrime) * modulus.pow(rMs, linkSecret)) % key.n

  const vTilde = randomBits(V_PRIME_TILDE_BITS)
  const mTilde = randomBits(M_TILDE_BITS)
  const uTilde = (modulus.pow(key.s, vTilde) * modulus.pow(rMs, mTilde)) % key.n
  const c = hashBigInts([u, uTilde, nonce])

  return {
    blinded_ms: { u: toDecimal(u), ur: null, hidden_attributes: [LINK_SECRET_ATTRIBUTE], committed_attributes: {} },
    blinded_ms_correctness_proof: {
      c: toDecimal(c),
      v_dash_cap: toDecimal(c * vPrime + vTilde),
      m_caps: { [LINK_SECRET_ATTRIBUTE]: toDecimal(c * linkSecret + mTilde) },
      r_caps: {},
    },
    vPrime: toDecimal(vPrime),
  }
}

/** Input of `verifyBlindedLinkSecretProof`. */
export interface VerifyBlindedLinkSecretInput {
  primary: CredentialPrimaryPublicKey
  blinded_ms: BlindedCredentialSecrets
  blinded_ms_correctness_proof: BlindedCredentialSecretsCorrectnessProof
  /** the nonce of the credential OFFER the request answers (decimal string) */
  offerNonce: string
}

/**
 * Verifies the holder's blinded-secrets correctness proof (issuer side, before signing).
 *
 * Û = U^-c · S^v_dash_cap · Π_hidden R_i^m_cap_i; for each committed attribute (sorted by name)
 * Ĉ = C^-c · Z^m_cap · S^r_cap; then c must equal H(Ĉ, C for each committed…, U, Û, nonce).
 *
 * @returns true when it verifies; false when it does not, or a hidden/committed attribute has no
 *   `m_caps` entry or is unknown to the key, or U is not a unit
 * @throws InvalidIssuanceInputError on malformed numbers
 *
 * Spec: AnonCreds v1 specification, "Issue Credential" (verifying the blinded link secret proof);
 * anoncreds-clsignatures `Issuer::_check_blinded_credential_secrets_correctness_proof`.
 */
export function verifyBlindedLinkSecretProof(input: VerifyBlindedLinkSecretInput): boolean {
  const key = parsePrimaryKey(input.primary)
  return checkBlindedSecretsProof(key, publicModulus(key.n), input)
}

/** `verifyBlindedLinkSecretProof` on a parsed key, with a (possibly CRT) modulus. */
export function checkBlindedSecretsProof(
  key: PrimaryKey,
  modulus: Modulus,
  input: Pick<VerifyBlindedLinkSecretInput, 'blinded_ms' | 'blinded_ms_correctness_proof' | 'offerNonce'>,
): boolean {
  const { blinded_ms: blinded, blinded_ms_correctness_proof: proof } = input
  if (blinded === null || typeof blinded !== 'object' || proof === null || typeof proof !== 'object') {
    throw new InvalidIssuanceInputError('blinded_ms and blinded_ms_correctness_proof must be objects')
  }
  const u = parseDecimal(blinded.u, 'blinded_ms.u')
  const c = parseDecimal(proof.c, 'blinded_ms_correctness_proof.c')
  const vDashCap = parseDecimal(proof.v_dash_cap, 'blinded_ms_correctness_proof.v_dash_cap')
  const nonce = parseDecimal(input.offerNonce, 'offerNonce')
  const mCaps = proof.m_caps ?? {}
  const rCaps = proof.r_caps ?? {}
  const hidden = Array.isArray(blinded.hidden_attributes) ? blinded.hidden_attributes : []
  const committed = Object.entries(blinded.committed_attributes ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

  const n = key.n
  try {
    let uCap = (modulus.pow(u, -c) * modulus.pow(key.s, vDashCap)) % n
    for (const name of hidden) {
      const base = key.r.get(name)
      if (base === undefined || mCaps[name] === undefined) return false
      uCap = (uCap * modulus.pow(base, parseDecimal(mCaps[name], `m_caps.${name}`))) % n
    }
    const values: bigint[] = []
    for (const [name, value] of committed) {
      if (mCaps[name] === undefined || rCaps[name] === undefined) return false
      const commitment = parseDecimal(value, `committed_attributes.${name}`)
      const mCap = parseDecimal(mCaps[name], `m_caps.${name}`)
      const rCap = parseDecimal(rCaps[name], `r_caps.${name}`)
      const cap = (((modulus.pow(commitment, -c) * modulus.pow(key.z, mCap)) % n) * modulus.pow(key.s, rCap)) % n
      values.push(cap, commitment)
    }
    return hashBigInts([...values, u, uCap, nonce]) === c
  } catch (error) {
    if (error instanceof NotInvertibleError) return false // U or a commitment is not a unit
    throw error
  }
}
