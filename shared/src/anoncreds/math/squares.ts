/**
 * Lagrange's four-square decomposition, for AnonCreds predicate proofs: Δ = u1² + u2² + u3² + u4².
 */
import { isqrt } from './bigint.ts'
import { randomInRange } from './random.ts'

/**
 * Four non-negative integers whose squares sum to `n` (n >= 0). Randomised (Rabin–Shallit style):
 * picks u1, u2 at random under √n and searches for the remaining sum of two squares.
 */
export function fourSquares(n: bigint): [bigint, bigint, bigint, bigint] {
  if (n < 0n) throw new RangeError('four squares of a negative number')
  if (n === 0n) return [0n, 0n, 0n, 0n]
  // For n ≡ 0 (mod 8) every representation has all four terms even: decompose n / 4^k and
  // scale by 2^k, else random u1, u2 would almost never fit.
  let scale = 1n
  while (n % 4n === 0n) {
    n /= 4n
    scale *= 2n
  }
  const [a, b, c, d] = decompose(n)
  return [a * scale, b * scale, c * scale, d * scale]
}

function decompose(n: bigint): [bigint, bigint, bigint, bigint] {
  const root = isqrt(n)
  for (let tries = 0; tries < 100_000; tries++) {
    const u1 = root < 2n ? root : randomInRange(0n, root + 1n)
    const rest1 = n - u1 * u1
    const root2 = isqrt(rest1)
    const u2 = root2 < 2n ? root2 : randomInRange(0n, root2 + 1n)
    const rest2 = rest1 - u2 * u2
    const pair = twoSquares(rest2)
    if (pair) return [u1, u2, pair[0], pair[1]]
  }
  throw new RangeError('four-square decomposition not found')
}

/**
 * Two squares summing to `m`, or undefined (the caller tries other u1, u2). Exhaustive for
 * m < 2^34 (predicate differences of 32-bit attribute values), bounded search above that.
 */
function twoSquares(m: bigint): [bigint, bigint] | undefined {
  const root = isqrt(m)
  const limit = root < 1n << 17n ? Number(root) + 1 : 2_000
  for (let a = root, steps = 0; a >= 0n && steps < limit; a--, steps++) {
    const b2 = m - a * a
    const b = isqrt(b2)
    if (b * b === b2) return [a, b]
  }
  return undefined
}
