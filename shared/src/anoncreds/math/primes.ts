/**
 * Primes for CL keys and signatures: Miller–Rabin on BigInt, random primes in a range, and the
 * safe-prime search of issuer key generation. The search's arithmetic comes from the runtime: on
 * Node, OpenSSL's exponentiation and Miller–Rabin (`crypto.checkPrimeSync`), found without
 * importing `node:` modules (`process.getBuiltinModule`) so the engine still bundles for workerd;
 * else BigInt (about 5x slower per exponentiation: about 1 s CPU per 1,025-bit safe prime).
 */
import { modPow } from './bigint.ts'
import { opensslPower } from './native-power.ts'
import { nodeBuiltin } from './node-builtin.ts'
import { randomBits, randomInRange } from './random.ts'

/** The odd primes below `limit` (sieve of Eratosthenes over the odd numbers). */
function oddPrimesBelow(limit: number): number[] {
  const composite = new Uint8Array(limit)
  const found: number[] = []
  for (let i = 3; i < limit; i += 2) {
    if (composite[i]) continue
    found.push(i)
    for (let j = i * i; j < limit; j += 2 * i) composite[j] = 1
  }
  return found
}

const SMALL_PRIMES: number[] = [2, ...oddPrimesBelow(20_000)]

/** Whether `candidate` (>= 2) is a prime below 20,000 (`true`), has one as a factor (`false`), or neither (`undefined`). */
function bySmallPrimes(candidate: bigint): boolean | undefined {
  for (const p of SMALL_PRIMES) {
    const bp = BigInt(p)
    if (candidate === bp) return true
    if (candidate % bp === 0n) return false
  }
  return undefined
}

/** Miller–Rabin with `rounds` random bases (error < 4^-rounds), after trial division. */
export function isProbablePrime(candidate: bigint, rounds = 40): boolean {
  if (candidate < 2n) return false
  const small = bySmallPrimes(candidate)
  if (small !== undefined) return small
  let d = candidate - 1n
  let s = 0
  while ((d & 1n) === 0n) {
    d >>= 1n
    s++
  }
  witness: for (let i = 0; i < rounds; i++) {
    let x = modPow(randomInRange(2n, candidate - 1n), d, candidate)
    if (x === 1n || x === candidate - 1n) continue
    for (let r = 1; r < s; r++) {
      x = (x * x) % candidate
      if (x === candidate - 1n) continue witness
    }
    return false
  }
  return true
}

/** The smallest probable prime >= `start`. */
export function nextPrime(start: bigint): bigint {
  let candidate = start <= 2n ? 2n : start | 1n
  if (start === 2n) return 2n
  while (!isProbablePrime(candidate)) candidate += 2n
  return candidate
}

/**
 * A uniform random probable prime in [start, start + span), for start > 20,000: each candidate
 * goes through trial division, then a base-2 Fermat test on `backend.pow`, and only then
 * `backend.isPrime`. The backend is the runtime's unless given: the issuer's 597-bit e on Node
 * (OpenSSL) takes about a fifth of BigInt's time (bench/README.md "anoncreds").
 * @throws RangeError if none found.
 */
export function randomPrimeInRange(start: bigint, span: bigint, backend: PrimalityBackend = runtimePrimality()): bigint {
  for (let tries = 0; tries < 100_000; tries++) {
    const candidate = randomInRange(start, start + span) | 1n
    if (candidate >= start + span || bySmallPrimes(candidate) === false) continue
    if (passesFermat(backend, candidate) && backend.isPrime(candidate)) return candidate
  }
  throw new RangeError('no prime found in range')
}

/**
 * The two operations the safe-prime search needs from the runtime: a modular exponentiation (for
 * the cheap base-2 Fermat filter) and a full probable-prime test (for the confirmation).
 */
export interface PrimalityBackend {
  /** `base^exponent mod modulus` for an odd modulus, 0 <= base < modulus, 1 <= exponent < modulus (as `modPow`). */
  pow(base: bigint, exponent: bigint, modulus: bigint): bigint
  /** True when the odd `candidate` > 3 is a probable prime, at an error rate of 2^-64 or less. */
  isPrime(candidate: bigint): boolean
}

/** The base-2 Fermat test, 2^(c-1) ≡ 1 (mod c), on `backend.pow`: a cheap filter before `isPrime`. */
function passesFermat(backend: PrimalityBackend, candidate: bigint): boolean {
  return backend.pow(2n, candidate - 1n, candidate) === 1n
}

/** Pure BigInt: `modPow`, and Miller–Rabin with 40 random bases (error < 2^-80, `isProbablePrime`). */
export const bigintPrimality: PrimalityBackend = { pow: modPow, isPrime: (candidate) => isProbablePrime(candidate) }

type CheckPrime = (candidate: bigint, options: { checks: number }) => boolean

/**
 * The runtime's fastest primality backend: on Node, OpenSSL's exponentiation (`opensslPower`) and
 * OpenSSL's Miller–Rabin (`crypto.checkPrimeSync` with `checks: 0`, OpenSSL's count for the size:
 * 64 rounds below 2,048 bits in OpenSSL 3, which also raises any smaller count to it, so it is no
 * cheap filter); elsewhere (workerd) `bigintPrimality`.
 */
export function runtimePrimality(): PrimalityBackend {
  const checkPrime = nodeBuiltin<{ checkPrimeSync?: CheckPrime }>('node:crypto')?.checkPrimeSync
  const native = opensslPower()
  if (!checkPrime || !native) return bigintPrimality
  return {
    pow: (base, exponent, modulus) => native.pow(base, exponent, modulus),
    isPrime: (candidate) => checkPrime(candidate, { checks: 0 }),
  }
}

/** Smallest size `generateSafePrime` takes, in bits. */
export const MIN_SAFE_PRIME_BITS = 16

/** The search sieves by the odd primes below this bound (82,024 primes). */
const SIEVE_BOUND = 1 << 20

/**
 * Candidates sieved at once, from one random start: a window of 2^19 holds a 1,025-bit safe prime
 * about 94 % of the time (2^18–2^20 measured alike, bench/README.md "anoncreds").
 */
const SIEVE_WINDOW = 1 << 19

/** The odd primes below `SIEVE_BOUND`, as numbers and as bigints (for `start % r`). */
interface SieveTable {
  primes: Uint32Array
  bigPrimes: bigint[]
}

// built on a thread's first search (about 20 ms) and kept for the thread's later ones
let sieveTable: SieveTable | undefined

function oddSmallPrimes(): SieveTable {
  if (sieveTable) return sieveTable
  const found = oddPrimesBelow(SIEVE_BOUND)
  sieveTable = { primes: Uint32Array.from(found), bigPrimes: found.map(BigInt) }
  return sieveTable
}

/**
 * A random safe prime p = 2q + 1 of exactly `bits` bits, its top two bits set (q prime too, of
 * `bits - 1` bits): the primes P, Q of an issuer's key, whose halves p', q' are the private key
 * (AnonCreds v1 specification, "Generating a Credential Definition Without Revocation Support":
 * P and Q are random safe primes).
 *
 * The search: q0 is a fresh random odd start from `crypto.getRandomValues` (`randomBits`), top two
 * bits set; the candidates q0 + 2k, k in [0, 2^19), are sieved for both q and 2q + 1 by every odd
 * prime below 2^20 (about 0.43 % of them survive), and the survivors are tried in order: a base-2
 * Fermat test of q (2^(q-1) ≡ 1 mod q), then of p, then, when both pass, the backend's full
 * probable-prime test of both. A window without a safe prime is dropped for a new random start.
 * Security: every call starts afresh, so the two primes of one key are independent (two from one
 * window or start would lie close together, and n = PQ with |P - Q| small falls to Fermat's
 * factorisation); nothing is returned before q and p both pass the full test. As in OpenSSL's own
 * search, the first safe prime after a random start is taken (primes after long gaps are slightly
 * favoured).
 *
 * @param bits size of p in bits, an integer >= `MIN_SAFE_PRIME_BITS` (1,025 for issuer keys)
 * @param backend exponentiation and primality test (default: the runtime's, `runtimePrimality()`)
 * @returns p, with bit length exactly `bits`
 * @throws RangeError for `bits` below `MIN_SAFE_PRIME_BITS` or not an integer
 */
export function generateSafePrime(bits: number, backend: PrimalityBackend = runtimePrimality()): bigint {
  if (!Number.isInteger(bits) || bits < MIN_SAFE_PRIME_BITS) {
    throw new RangeError(`a safe prime needs an integer size of at least ${MIN_SAFE_PRIME_BITS} bits`)
  }
  const { primes, bigPrimes } = oddSmallPrimes()
  const halfBits = bits - 1
  const end = 1n << BigInt(halfBits) // q < end, so p has `bits` bits
  const topTwo = 3n << BigInt(halfBits - 2)
  // sieve only by primes below q's smallest value, so a prime q or p is never struck for being one
  const sieveLimit = Math.min(SIEVE_BOUND, 2 ** (bits - 3))
  let count = primes.length
  while (count > 0 && primes[count - 1]! >= sieveLimit) count--
  const struck = new Uint8Array(SIEVE_WINDOW)
  for (;;) {
    const start = randomBits(halfBits) | topTwo | 1n
    const room = (end - 1n - start) >> 1n // the last k with q0 + 2k < end
    const width = room < BigInt(SIEVE_WINDOW) ? Number(room) + 1 : SIEVE_WINDOW
    struck.fill(0)
    for (let i = 0; i < count; i++) {
      const r = primes[i]!
      const a = Number(start % bigPrimes[i]!) // q0 mod r; q = q0 + 2k
      const half = (r + 1) >>> 1 // 1/2 mod r
      // r | q when k ≡ -a/2; r | 2q + 1 when q ≡ (r - 1)/2, i.e. k ≡ ((r - 1)/2 - a)/2 (mod r)
      for (let k = ((r - a) * half) % r; k < width; k += r) struck[k] = 1
      for (let k = ((half - 1 - a + r) * half) % r; k < width; k += r) struck[k] = 1
    }
    for (let k = 0; k < width; k++) {
      if (struck[k]) continue
      const q = start + BigInt(2 * k)
      if (!passesFermat(backend, q)) continue
      const p = 2n * q + 1n
      if (passesFermat(backend, p) && backend.isPrime(q) && backend.isPrime(p)) return p
    }
  }
}
