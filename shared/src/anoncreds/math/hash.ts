/** Hashing for Fiat–Shamir challenges and attribute encoding, as anoncreds-rs does it. */
import { sha256 } from '@noble/hashes/sha2.js'
import { bigIntToBytes, bytesToBigInt } from './random.ts'

/**
 * SHA-256 over the concatenation of each value's minimal big-endian bytes (`bigIntToBytes`),
 * the digest read as a big-endian integer: the CL challenge hash.
 */
export function hashBigInts(values: readonly bigint[]): bigint {
  const parts = values.map(bigIntToBytes)
  const total = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const part of parts) {
    total.set(part, offset)
    offset += part.length
  }
  return bytesToBigInt(sha256(total))
}

/** SHA-256 of `bytes` read as a big-endian integer. */
export function sha256BigInt(bytes: Uint8Array): bigint {
  return bytesToBigInt(sha256(bytes))
}
