/**
 * Primes for CL keys and signatures. Safe primes come from Node's OpenSSL
 * (`crypto.generatePrimeSync(bits, { safe: true })`, about 1 s for 1025 bits) when the runtime
 * has it, found without importing `node:` modules (`process.getBuiltinModule`), else from a pure
 * BigInt sieve + Miller–Rabin (slow: minutes for 1025 bits; Workers should not generate keys).
 */
import { bitLength, modPow } from './bigint.ts'
import { randomBits, randomInRange } from './random.ts'

const SMALL_PRIMES: number[] = (() => {
  const limit = 20_000
  const sieve = new Uint8Array(limit)
  const primes: number[] = []
  for (let i = 2; i < limit; i++) {
    if (sieve[i]) continue
    primes.push(i)
    for (let j = i * i; j < limit; j += i) sieve[j] = 1
  }
  return primes
})()

/** Miller–Rabin with `rounds` random bases (error < 4^-rounds), after trial division. */
export function isProbablePrime(candidate: bigint, rounds = 40): boolean {
  if (candidate < 2n) return false
  for (const p of SMALL_PRIMES) {
    const bp = BigInt(p)
    if (candidate === bp) return true
    if (candidate % bp === 0n) return false
  }
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

/** A uniform random probable prime in [start, start + span). @throws RangeError if none found. */
export function randomPrimeInRange(start: bigint, span: bigint): bigint {
  for (let tries = 0; tries < 100_000; tries++) {
    const candidate = randomInRange(start, start + span) | 1n
    if (candidate < start + span && isProbablePrime(candidate)) return candidate
  }
  throw new RangeError('no prime found in range')
}

type GeneratePrime = (bits: number, options: { safe: boolean; bigint: true }) => bigint

function nodePrimeGenerator(): GeneratePrime | undefined {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
  const nodeCrypto = getBuiltinModule?.('node:crypto') as { generatePrimeSync?: GeneratePrime } | undefined
  return nodeCrypto?.generatePrimeSync
}

/** A random safe prime p = 2p' + 1 of exactly `bits` bits (p' prime too). */
export function generateSafePrime(bits: number): bigint {
  const native = nodePrimeGenerator()
  if (native) return native(bits, { safe: true, bigint: true })
  for (;;) {
    const half = randomBits(bits - 1) | (1n << BigInt(bits - 2)) | 1n
    const p = 2n * half + 1n
    if (bitLength(p) !== bits) continue
    // cheap sieve of both before Miller–Rabin
    if (
      SMALL_PRIMES.some((sp) => {
        const b = BigInt(sp)
        return (half % b === 0n && half !== b) || (p % b === 0n && p !== b)
      })
    )
      continue
    if (isProbablePrime(half, 20) && isProbablePrime(p, 20)) return p
  }
}
