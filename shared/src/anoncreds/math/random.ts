/**
 * Uniform random integers from `crypto.getRandomValues` (Web Crypto: Node and workerd alike).
 */

/** A uniform integer in [0, 2^bits). */
export function randomBits(bits: number): bigint {
  if (bits <= 0) return 0n
  const bytes = new Uint8Array(Math.ceil(bits / 8))
  fill(bytes)
  const excess = bytes.length * 8 - bits
  bytes[0]! &= 0xff >> excess
  return bytesToBigInt(bytes)
}

/** A uniform integer in [min, max) (rejection sampling, no modulo bias). */
export function randomInRange(min: bigint, max: bigint): bigint {
  if (max <= min) throw new RangeError('empty range')
  const span = max - min
  const bits = (span - 1n).toString(2).length
  for (;;) {
    const candidate = randomBits(bits)
    if (candidate < span) return min + candidate
  }
}

/** getRandomValues takes at most 65,536 bytes a call. */
function fill(bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.length; offset += 65_536) {
    crypto.getRandomValues(bytes.subarray(offset, Math.min(bytes.length, offset + 65_536)))
  }
}

/** A non-negative integer from big-endian bytes. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex === '' ? 0n : BigInt(`0x${hex}`)
}

/**
 * The minimal big-endian bytes of a non-negative integer, as OpenSSL's `BN_bn2bin` writes them
 * (what anoncreds-rs hashes): zero is the empty array.
 */
export function bigIntToBytes(value: bigint): Uint8Array {
  if (value < 0n) throw new RangeError('negative integers have no byte form here')
  if (value === 0n) return new Uint8Array(0)
  let hex = value.toString(16)
  if (hex.length % 2) hex = `0${hex}`
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return bytes
}
