/** Encoding of raw attribute values into the integers that CL signatures sign. */
import { sha256BigInt } from '../math/index.ts'

const INT32_MIN = -(2n ** 31n)
const INT32_MAX = 2n ** 31n - 1n

/** What Rust's `str::parse::<i32>()` accepts: an optional sign, then ASCII digits only. */
const RUST_INTEGER = /^[+-]?[0-9]+$/

/**
 * The encoded (decimal string) form of a raw attribute value, decided exactly as anoncreds-rs
 * `encode_credential_attribute` does:
 * - a raw value that Rust's `parse::<i32>()` accepts (optional `+`/`-`, ASCII digits, within
 *   [-2^31, 2^31 - 1]) becomes its canonical decimal (`'+7'` -> `'7'`, `'007'` -> `'7'`,
 *   `'-0'` -> `'0'`);
 * - anything else becomes the decimal of SHA-256 over its UTF-8 bytes, read big-endian
 *   (a 256-bit non-negative integer).
 *
 * @param raw the raw value as a string (any length, may be empty)
 * @returns a decimal string, possibly negative for 32-bit negative integers
 *
 * Spec: AnonCreds v1 specification, "Encoding Attribute Data".
 */
export function encodeAttributeValue(raw: string): string {
  if (RUST_INTEGER.test(raw)) {
    const value = BigInt(raw)
    if (value >= INT32_MIN && value <= INT32_MAX) return value.toString()
  }
  return sha256BigInt(new TextEncoder().encode(raw)).toString()
}
