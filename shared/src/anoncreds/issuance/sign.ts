/** The issuer signs a credential: the CL signature (A, e, v'') over the values and the blinded U. */
import { randomBits, randomPrimeInRange, modInverse } from '../math/index.ts'
import { checkBlindedSecretsProof } from './blinding.ts'
import { attributeTerms } from './attributeValues.ts'
import { E_RANGE_BITS, E_START_BITS, V_PRIME_PRIME_BITS } from './constants.ts'
import { credentialContext } from './context.ts'
import { parseDecimal, toDecimal } from './decimal.ts'
import { BlindedLinkSecretProofError, InvalidIssuanceInputError } from './errors.ts'
import { privateModulus } from './modulus.ts'
import { parsePrimaryKey } from './primaryKey.ts'
import { createSignatureCorrectnessProof } from './signatureCorrectness.ts'
import { signatureQuotient } from './signatureQuotient.ts'
import type {
  BlindedCredentialSecrets,
  BlindedCredentialSecretsCorrectnessProof,
  CredentialPrimaryPrivateKey,
  CredentialPrimaryPublicKey,
  EncodedValues,
  PrimaryCredentialSignature,
  SignatureCorrectnessProof,
} from './types.ts'

/** Input of `signCredential`. */
export interface SignCredentialInput {
  primary: CredentialPrimaryPublicKey
  privateKey: CredentialPrimaryPrivateKey
  blinded_ms: BlindedCredentialSecrets
  blinded_ms_correctness_proof: BlindedCredentialSecretsCorrectnessProof
  /** nonce of the credential offer: the blinded-secrets proof was hashed with it */
  offerNonce: string
  /** nonce of the credential request: the signature-correctness proof is hashed with it */
  requestNonce: string
  /** the request's `entropy` (or legacy `prover_did`) */
  proverId: string
  /** normalised name -> encoded decimal value, for every attribute except the hidden `master_secret` */
  encodedValues: EncodedValues
  /**
   * Revocation registry index, only to reproduce the m_2 of credentials issued with revocation
   * (this module does not build the non-revocation part). Omitted: -1 as anoncreds-rs without revocation.
   */
  revocationIndex?: number
}

/** Output of `signCredential`. */
export interface SignedCredential {
  p_credential: PrimaryCredentialSignature
  signature_correctness_proof: SignatureCorrectnessProof
}

/**
 * Signs a credential (issuer side, primary signature only).
 *
 * 1. Verifies the blinded-secrets correctness proof with the OFFER nonce.
 * 2. m_2 = credential context of `proverId` and the revocation index (-1 without revocation).
 * 3. v'' random of 2724 bits with the top bit set; e a random prime in [2^596, 2^596 + 2^119).
 * 4. Q = Z / (S^v'' · U · R_ctxt^m_2 · Π R_i^m_i) mod n, A = Q^(e^-1 mod p'q') mod n (CRT).
 * 5. The signature-correctness proof with the REQUEST nonce.
 *
 * @returns `{ p_credential: { m_2, a, e, v }, signature_correctness_proof: { se, c } }` (decimal
 *   strings; `v` is v'', the holder adds v')
 * @throws BlindedLinkSecretProofError when the holder's proof does not verify
 * @throws InvalidIssuanceInputError on malformed numbers, a private key that does not match n,
 *   or missing/unknown attribute values
 *
 * Spec: AnonCreds v1 specification, "Issue Credential" (primary credential and signature
 * correctness proof); anoncreds-clsignatures `Issuer::sign_credential`.
 */
export function signCredential(input: SignCredentialInput): SignedCredential {
  const key = parsePrimaryKey(input.primary)
  const pPrime = parseDecimal(input.privateKey?.p, 'privateKey.p')
  const qPrime = parseDecimal(input.privateKey?.q, 'privateKey.q')
  if ((2n * pPrime + 1n) * (2n * qPrime + 1n) !== key.n) {
    throw new InvalidIssuanceInputError('the private key does not match the public key (n ≠ (2p+1)(2q+1))')
  }
  const modulus = privateModulus(pPrime, qPrime)

  if (!checkBlindedSecretsProof(key, modulus, input)) {
    throw new BlindedLinkSecretProofError('the blinded link secret correctness proof does not verify')
  }
  const hidden = input.blinded_ms.hidden_attributes ?? []
  const terms = attributeTerms(key, input.encodedValues, hidden)
  if (typeof input.proverId !== 'string') throw new InvalidIssuanceInputError('proverId must be a string')
  const m2 = credentialContext(input.proverId, input.revocationIndex)
  const u = parseDecimal(input.blinded_ms.u, 'blinded_ms.u')
  const requestNonce = parseDecimal(input.requestNonce, 'requestNonce')

  const vPrimePrime = randomBits(V_PRIME_PRIME_BITS) | (1n << BigInt(V_PRIME_PRIME_BITS - 1))
  // tested with the runtime's primality test: OpenSSL's Miller–Rabin on Node, as
  // anoncreds-clsignatures-rs tests its primes (`BN_is_prime_ex` at OpenSSL's count); BigInt in workerd
  const e = randomPrimeInRange(1n << BigInt(E_START_BITS), 1n << BigInt(E_RANGE_BITS))
  const q = signatureQuotient(key, modulus, vPrimePrime, m2, terms, u)
  const a = modulus.pow(q, modInverse(e, modulus.order))
  const proof = createSignatureCorrectnessProof(modulus, q, a, e, requestNonce)

  return {
    p_credential: { m_2: toDecimal(m2), a: toDecimal(a), e: toDecimal(e), v: toDecimal(vPrimePrime) },
    signature_correctness_proof: { se: toDecimal(proof.se), c: toDecimal(proof.c) },
  }
}
