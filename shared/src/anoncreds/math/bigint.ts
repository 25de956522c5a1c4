/**
 * Big-integer arithmetic for the CL signatures of AnonCreds v1, on native BigInt. Portable: no
 * `node:` imports; randomness only from `crypto.getRandomValues`.
 *
 * Not constant-time: BigInt operations take time that depends on their operands (see the
 * module README, "Side channels").
 */

/** `base^exponent mod modulus` for modulus > 1; a negative exponent uses the inverse of `base`. */
export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  if (modulus === 1n) return 0n
  if (exponent < 0n) return modPow(modInverse(base, modulus), -exponent, modulus)
  base = mod(base, modulus)
  if (exponent < 64n) return smallPow(base, exponent, modulus)
  return slidingWindowPow(base, exponent, modulus)
}

function smallPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) % modulus
    base = (base * base) % modulus
    exponent >>= 1n
  }
  return result
}

/** Left-to-right sliding-window exponentiation with odd powers precomputed (window 5). */
function slidingWindowPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  const WINDOW = 5
  const square = (base * base) % modulus
  const odd: bigint[] = [base] // base^1, base^3, …, base^(2^WINDOW - 1)
  for (let i = 1; i < 1 << (WINDOW - 1); i++) odd.push((odd[i - 1]! * square) % modulus)
  const bits = exponent.toString(2)
  let result = 1n
  let i = 0
  while (i < bits.length) {
    if (bits[i] === '0') {
      result = (result * result) % modulus
      i++
      continue
    }
    // the longest window of at most WINDOW bits starting here and ending in a 1
    let end = Math.min(i + WINDOW, bits.length)
    while (bits[end - 1] === '0') end--
    const value = parseInt(bits.slice(i, end), 2)
    for (let k = i; k < end; k++) result = (result * result) % modulus
    result = (result * odd[(value - 1) >> 1]!) % modulus
    i = end
  }
  return result
}

/** `value mod modulus` in [0, modulus). */
export function mod(value: bigint, modulus: bigint): bigint {
  const r = value % modulus
  return r < 0n ? r + modulus : r
}

/**
 * The inverse of `value` modulo `modulus`.
 * @throws RangeError when they are not coprime.
 */
export function modInverse(value: bigint, modulus: bigint): bigint {
  let [oldR, r] = [mod(value, modulus), modulus]
  let [oldS, s] = [1n, 0n]
  while (r !== 0n) {
    const q = oldR / r
    ;[oldR, r] = [r, oldR - q * r]
    ;[oldS, s] = [s, oldS - q * s]
  }
  if (oldR !== 1n) throw new RangeError('value has no inverse modulo modulus')
  return mod(oldS, modulus)
}

/** Greatest common divisor of two non-negative integers. */
export function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b]
  return a
}

/** Number of bits of a non-negative integer (0 for 0). */
export function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length
}

/** Integer square root: the largest r with r² <= value (value >= 0). */
export function isqrt(value: bigint): bigint {
  if (value < 0n) throw new RangeError('square root of a negative number')
  if (value < 2n) return value
  let x = 1n << BigInt((bitLength(value) + 1) >> 1)
  for (;;) {
    const y = (x + value / x) >> 1n
    if (y >= x) return x
    x = y
  }
}

/**
 * CRT exponentiation for a modulus n = p·q with p, q coprime primes: `base^exponent mod n` from
 * the two half-size exponentiations (about 3x faster for issuer-side work on the secret factors),
 * each made by `pow` (`modPow` unless given, e.g. a native one).
 */
export function modPowCrt(
  base: bigint,
  exponent: bigint,
  p: bigint,
  q: bigint,
  qInvModP = modInverse(q, p),
  pow: (base: bigint, exponent: bigint, modulus: bigint) => bigint = modPow,
): bigint {
  if (exponent < 0n) throw new RangeError('modPowCrt takes a non-negative exponent')
  const mp = pow(base, exponent % (p - 1n), p)
  const mq = pow(base, exponent % (q - 1n), q)
  return mq + q * mod((mp - mq) * qInvModP, p)
}
