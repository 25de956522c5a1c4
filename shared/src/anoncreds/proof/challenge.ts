/**
 * The aggregated Fiat–Shamir challenge of a CL proof (anoncreds-clsignatures-rs
 * `ProofBuilder::finalize`, `ProofVerifier::verify`; AnonCreds specification, "Aggregated Proof"):
 * c_hash = SHA-256(tau_1 ‖ … ‖ tau_k ‖ c_1 ‖ … ‖ c_l ‖ nonce), each number as its minimal big-endian
 * bytes (curve-valued taus of non-revocation sub-proofs as their AMCL `to_bytes`), the nonce as the
 * big integer of its decimal string; the digest read big-endian.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bigIntToBytes, bytesToBigInt } from '../math/index.ts'

/**
 * c_hash over the tau values in sub-proof order (bigints as minimal bytes, byte strings as they
 * are), the `c_list` byte strings exactly as they appear in the proof, and the nonce.
 */
export function challengeHash(tauList: ReadonlyArray<bigint | Uint8Array>, cList: readonly Uint8Array[], nonce: bigint): bigint {
  const hash = sha256.create()
  for (const tau of tauList) hash.update(typeof tau === 'bigint' ? bigIntToBytes(tau) : tau)
  for (const c of cList) hash.update(c)
  hash.update(bigIntToBytes(nonce))
  return bytesToBigInt(hash.digest())
}
