/** Strict decimal-string <-> bigint conversions for the JSON shapes. */
import { InvalidIssuanceInputError } from './errors.ts'

const DECIMAL = /^-?[0-9]+$/

/**
 * A decimal string as a bigint. Stricter than `BigInt()`: no whitespace, no `0x`, not empty.
 * @param value the decimal string
 * @param what a name for the error message, e.g. `'primary.n'`
 * @param allowNegative accept a leading `-` (encoded attribute values may be negative)
 * @throws InvalidIssuanceInputError when `value` is not a (non-negative) decimal integer
 */
export function parseDecimal(value: unknown, what: string, allowNegative = false): bigint {
  if (typeof value !== 'string' || !DECIMAL.test(value) || (!allowNegative && value.startsWith('-'))) {
    throw new InvalidIssuanceInputError(`${what} must be a ${allowNegative ? '' : 'non-negative '}decimal integer string`)
  }
  return BigInt(value)
}

/** A bigint as its decimal string (the JSON form). */
export function toDecimal(value: bigint): string {
  return value.toString(10)
}
