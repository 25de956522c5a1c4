/** Issuer key generation for the CL signature scheme (primary key only, no revocation key). */
import { gcd, generateSafePrime, randomInRange } from '../math/index.ts'
import { toDecimal } from './decimal.ts'
import { InvalidIssuanceInputError } from './errors.ts'
import { createKeyCorrectnessProof, randomExponent } from './keyCorrectness.ts'
import { privateModulus } from './modulus.ts'
import { primaryKeyToJson, type PrimaryKey } from './primaryKey.ts'
import type { CredentialKeyCorrectnessProof, CredentialPrimaryPrivateKey, CredentialPrimaryPublicKey } from './types.ts'

/** Bits of the safe primes P = 2p'+1, Q = 2q'+1 (anoncreds-clsignatures asks OpenSSL for LARGE_PRIME + 1). */
export const SAFE_PRIME_BITS = 1025

/** A new issuer key: the public primary key, the private p', q' and the key-correctness proof. */
export interface CredentialKeys {
  primary: CredentialPrimaryPublicKey
  privateKey: CredentialPrimaryPrivateKey
  keyCorrectnessProof: CredentialKeyCorrectnessProof
}

/**
 * Generates an issuer's primary CL key pair and its key-correctness proof.
 *
 * P, Q are random 1025-bit safe primes (`safePrimeHalf`, `generateSafePrime`: about 0.2–0.3 s
 * CPU each at the median on Node, random in length; about 1 s on BigInt alone, as in workerd),
 * p' = (P-1)/2, q' = (Q-1)/2 are stored as the private key and n = P·Q (2,050 bits: both have
 * their top two bits set). S is the square of a random unit modulo n, redrawn until it generates
 * the whole group of quadratic residues (S ≠ 1, S^p' ≠ 1, S^q' ≠ 1). With exponents uniform in
 * [2, p'q' - 1): R_i = S^x_i for every attribute, Z = S^xz, R_ctxt = S^x.
 *
 * @param attributeNames normalised attribute names including `master_secret`, unique, non-empty;
 *   the order of `primary.r` and of `keyCorrectnessProof.xr_cap`
 * @returns `{ primary: { n, s, r, rctxt, z }, privateKey: { p, q }, keyCorrectnessProof: { c, xz_cap, xr_cap } }`,
 *   all decimal strings
 * @throws InvalidIssuanceInputError when the list is empty or has duplicates
 *
 * Spec: AnonCreds v1 specification, "Generating a Credential Definition Without Revocation
 * Support"; anoncreds-clsignatures `Issuer::new_credential_def` (primary part).
 */
export function createCredentialKeys(attributeNames: readonly string[]): CredentialKeys {
  checkAttributeNames(attributeNames)
  let pPrime: bigint
  let qPrime: bigint
  do {
    pPrime = safePrimeHalf()
    qPrime = safePrimeHalf()
  } while (pPrime === qPrime)
  return credentialKeysFromPrimes(attributeNames, pPrime, qPrime)
}

/**
 * p' = (P-1)/2 of a new random safe prime P of `SAFE_PRIME_BITS` bits: the expensive half of
 * `createCredentialKeys` (two searches), split out so a caller can run it off its main thread (two at
 * once, one per prime) and finish with `credentialKeysFromPrimes`.
 */
export function safePrimeHalf(): bigint {
  return (generateSafePrime(SAFE_PRIME_BITS) - 1n) >> 1n
}

/**
 * The rest of `createCredentialKeys` once p', q' are chosen (Sophie Germain primes with
 * 2p'+1, 2q'+1 of `SAFE_PRIME_BITS` bits, as `safePrimeHalf` returns): S, the R_i, Z, R_ctxt and
 * the key-correctness proof, through CRT (about 0.1–0.3 s). Same parameters and result as
 * `createCredentialKeys`.
 * @throws InvalidIssuanceInputError for bad attribute names or p' = q'
 */
export function credentialKeysFromPrimes(attributeNames: readonly string[], pPrime: bigint, qPrime: bigint): CredentialKeys {
  checkAttributeNames(attributeNames)
  if (pPrime === qPrime) throw new InvalidIssuanceInputError("p' and q' must differ")
  const modulus = privateModulus(pPrime, qPrime)
  const { n, order } = modulus
  const s = quadraticResidueGenerator(n, pPrime, qPrime, modulus.pow)

  const xz = randomExponent(order)
  const xr = new Map<string, bigint>()
  for (const name of attributeNames) xr.set(name, randomExponent(order))
  const r = new Map<string, bigint>()
  for (const [name, x] of xr) r.set(name, modulus.pow(s, x))
  const key: PrimaryKey = { n, s, r, z: modulus.pow(s, xz), rctxt: modulus.pow(s, randomExponent(order)) }

  return {
    primary: primaryKeyToJson(key),
    privateKey: { p: toDecimal(pPrime), q: toDecimal(qPrime) },
    keyCorrectnessProof: createKeyCorrectnessProof(key, xz, xr, modulus),
  }
}

function checkAttributeNames(attributeNames: readonly string[]): void {
  if (attributeNames.length === 0) throw new InvalidIssuanceInputError('attribute list is empty')
  if (new Set(attributeNames).size !== attributeNames.length) {
    throw new InvalidIssuanceInputError('attribute names must be unique')
  }
}

/** A random square modulo n that generates the quadratic residues (order p'q'). */
function quadraticResidueGenerator(n: bigint, pPrime: bigint, qPrime: bigint, pow: (b: bigint, e: bigint) => bigint): bigint {
  for (;;) {
    const unit = randomInRange(1n, n)
    if (gcd(unit, n) !== 1n) continue
    const s = (unit * unit) % n
    if (s !== 1n && pow(s, pPrime) !== 1n && pow(s, qPrime) !== 1n) return s
  }
}
