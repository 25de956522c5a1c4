/**
 * The signature-correctness proof: the issuer shows A = Q^(e^-1) (mod n) without revealing the
 * factorisation; hashed with the credential REQUEST's nonce.
 */
import { hashBigInts, mod, modInverse, randomInRange } from '../math/index.ts'
import type { Modulus } from './modulus.ts'

/**
 * Creates the proof (issuer side): r uniform in [0, p'q'), Â = Q^r, c = H(Q, A, Â, nonce),
 * se = r - c·e^-1 mod p'q'.
 * @param modulus the CRT modulus of the private key (`order` = p'q')
 * @returns `{ se, c }` as bigints
 */
export function createSignatureCorrectnessProof(
  modulus: Modulus & { readonly order: bigint },
  q: bigint,
  a: bigint,
  e: bigint,
  nonce: bigint,
): { se: bigint; c: bigint } {
  const r = randomInRange(0n, modulus.order)
  const aCap = modulus.pow(q, r)
  const c = hashBigInts([q, a, aCap, nonce])
  const se = mod(r - c * modInverse(e, modulus.order), modulus.order)
  return { se, c }
}

/**
 * Checks the proof (holder side): Â = A^(c + se·e) (mod n) and c = H(Q, A, Â, nonce).
 * @param q Z / (S^v · R_ctxt^m_2 · Π R_i^m_i) as the holder recomputes it
 * @returns whether the challenge matches
 */
export function checkSignatureCorrectnessProof(
  modulus: Modulus,
  q: bigint,
  a: bigint,
  e: bigint,
  proof: { se: bigint; c: bigint },
  nonce: bigint,
): boolean {
  const aCap = modulus.pow(a, proof.c + proof.se * e)
  return hashBigInts([q, a, aCap, nonce]) === proof.c
}
