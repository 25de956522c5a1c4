/**
 * Strict conversions between the JSON forms of anoncreds-rs (decimal strings, byte arrays) and
 * bigint. Malformed input throws `ProofFormatError`.
 */
import { bigIntToBytes, bytesToBigInt } from '../math/index.ts'
import type { DecimalString } from './types.ts'

/** Thrown for input that does not have the shape of an anoncreds-rs value. */
export class ProofFormatError extends Error {
  override name = 'ProofFormatError'
}

const DECIMAL = /^-?[0-9]+$/

/**
 * A decimal string (optional leading '-', as OpenSSL's `BN_dec2bn` accepts) or a bigint, as a
 * bigint. `what` names the value in the error.
 * @throws ProofFormatError for anything else.
 */
export function parseBig(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value
  if (typeof value === 'string' && DECIMAL.test(value)) return BigInt(value)
  throw new ProofFormatError(`${what}: expected a decimal integer string`)
}

/**
 * `parseBig` for values that must not be negative (nonce, link secret: anoncreds-rs accepts
 * digits only for a nonce).
 * @throws ProofFormatError for a negative or malformed value.
 */
export function parseNatural(value: unknown, what: string): bigint {
  const n = parseBig(value, what)
  if (n < 0n) throw new ProofFormatError(`${what}: must not be negative`)
  return n
}

/** A non-negative bigint as anoncreds-rs writes it in JSON (decimal). */
export function toDecimal(value: bigint): DecimalString {
  return value.toString(10)
}

/**
 * A record of decimal strings as a Map of bigints (keys kept in their given order).
 * @throws ProofFormatError when `value` is not an object of decimal strings.
 */
export function parseBigRecord(value: unknown, what: string): Map<string, bigint> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProofFormatError(`${what}: expected an object`)
  }
  const out = new Map<string, bigint>()
  for (const [key, item] of Object.entries(value)) out.set(key, parseBig(item, `${what}.${key}`))
  return out
}

/**
 * A `c_list` entry (array of byte values 0–255) as its big-endian integer.
 * @throws ProofFormatError for anything else.
 */
export function parseByteArray(value: unknown, what: string): Uint8Array {
  if (!Array.isArray(value) || !value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw new ProofFormatError(`${what}: expected an array of byte values`)
  }
  return Uint8Array.from(value as number[])
}

/** The `c_list` form of a non-negative integer: its minimal big-endian bytes as numbers. */
export function toByteArray(value: bigint): number[] {
  return Array.from(bigIntToBytes(value))
}

/** Equality of two byte strings. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i])
}

export { bigIntToBytes, bytesToBigInt }
