import { checkPrimeSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  bigintPrimality,
  bigIntToBytes,
  bytesToBigInt,
  fourSquares,
  generateSafePrime,
  hashBigInts,
  isProbablePrime,
  MIN_SAFE_PRIME_BITS,
  modInverse,
  modPow,
  modPowCrt,
  type PrimalityBackend,
  randomBits,
  randomInRange,
  randomPrimeInRange,
  runtimePrimality,
} from '../../src/anoncreds/math/index.ts'

/** Reference square-and-multiply, to check the windowed version against. */
function naivePow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n
  b %= m
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m
    b = (b * b) % m
    e >>= 1n
  }
  return r
}

/** `backend`, recording every candidate its full test (`isPrime`) is asked about. */
function recordingConfirmations(backend: PrimalityBackend): { backend: PrimalityBackend; confirmed: bigint[] } {
  const confirmed: bigint[] = []
  return {
    confirmed,
    backend: {
      pow: backend.pow,
      isPrime: (candidate) => {
        confirmed.push(candidate)
        return backend.isPrime(candidate)
      },
    },
  }
}

describe('anoncreds math', () => {
  it('windowed modPow agrees with square-and-multiply, negative exponents invert', () => {
    for (let i = 0; i < 20; i++) {
      const m = randomBits(512) | 1n
      const b = randomInRange(2n, m)
      const e = randomBits(600)
      expect(modPow(b, e, m)).toBe(naivePow(b, e, m))
    }
    const p = 1000000007n
    expect((modPow(3n, -5n, p) * modPow(3n, 5n, p)) % p).toBe(1n)
  })

  it('CRT exponentiation equals the direct one', () => {
    const p = generateSafePrime(256)
    const q = generateSafePrime(256)
    const base = randomBits(500)
    const exponent = randomBits(700)
    expect(modPowCrt(base, exponent, p, q)).toBe(modPow(base, exponent, p * q))
  })

  it('modInverse inverts and refuses non-units', () => {
    const m = 2n ** 127n - 1n
    const a = randomInRange(2n, m)
    expect((a * modInverse(a, m)) % m).toBe(1n)
    expect(() => modInverse(6n, 9n)).toThrow(RangeError)
  })

  it('safe primes are safe and of the asked size', () => {
    const p = generateSafePrime(128)
    expect(p.toString(2)).toHaveLength(128)
    expect(isProbablePrime(p)).toBe(true)
    expect(isProbablePrime((p - 1n) / 2n)).toBe(true)
  })

  it('a 1,025-bit safe prime from the runtime backend passes OpenSSL with full rounds, top two bits set', () => {
    const p = generateSafePrime(1025)
    expect(p.toString(2)).toMatch(/^11[01]{1023}$/)
    expect(checkPrimeSync(p, { checks: 64 })).toBe(true)
    expect(checkPrimeSync((p - 1n) / 2n, { checks: 64 })).toBe(true)
  })

  it("a random prime in the issuer's e range, on both backends: in range, prime by OpenSSL's full test, confirmed only after the Fermat filter", () => {
    const start = 1n << 596n
    const span = 1n << 119n
    for (const runtime of [bigintPrimality, runtimePrimality()]) {
      const { backend, confirmed } = recordingConfirmations(runtime)
      const e = randomPrimeInRange(start, span, backend)
      expect(e >= start && e < start + span).toBe(true)
      expect(checkPrimeSync(e, { checks: 64 })).toBe(true)
      // composites stop at trial division or the base-2 Fermat test: the full test ran on e alone
      expect(confirmed).toEqual([e])
    }
    expect(() => randomPrimeInRange(24n, 4n)).toThrow(new RangeError('no prime found in range'))
  })

  it('two searches give different safe primes', () => {
    expect(generateSafePrime(512)).not.toBe(generateSafePrime(512))
  })

  it('the BigInt backend alone gives a safe prime, confirmed by its full test for both halves', () => {
    const { backend, confirmed } = recordingConfirmations(bigintPrimality)
    const p = generateSafePrime(256, backend)
    expect(p.toString(2)).toMatch(/^11[01]{254}$/)
    expect(checkPrimeSync(p, { checks: 64 })).toBe(true)
    expect(checkPrimeSync((p - 1n) / 2n, { checks: 64 })).toBe(true)
    expect(confirmed.slice(-2)).toEqual([(p - 1n) / 2n, p])
  })

  it('small sizes stay exact and safe; sizes below the minimum are refused', () => {
    for (let i = 0; i < 20; i++) {
      const p = generateSafePrime(MIN_SAFE_PRIME_BITS)
      expect(p.toString(2)).toHaveLength(MIN_SAFE_PRIME_BITS)
      expect(checkPrimeSync(p) && checkPrimeSync((p - 1n) / 2n)).toBe(true)
    }
    expect(() => generateSafePrime(MIN_SAFE_PRIME_BITS - 1)).toThrow(RangeError)
    expect(() => generateSafePrime(512.5)).toThrow(RangeError)
  })

  it('bytes round-trip as minimal big-endian, zero as no bytes', () => {
    expect(bigIntToBytes(0n)).toEqual(new Uint8Array(0))
    expect(bigIntToBytes(256n)).toEqual(Uint8Array.from([1, 0]))
    const n = randomBits(2048)
    expect(bytesToBigInt(bigIntToBytes(n))).toBe(n)
  })

  it('hashes the concatenation of minimal big-endian bytes with SHA-256', () => {
    // SHA-256 of the bytes 01 00 02 = sha256("\x01\x00\x02")
    expect(hashBigInts([256n, 2n])).toBe(hashBigInts([0x010002n]))
    expect(hashBigInts([0n])).toBe(BigInt('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'))
  })

  it('decomposes into four squares', () => {
    for (const n of [0n, 1n, 2n, 3n, 7n, 15n, 1n << 31n, randomBits(32), randomBits(33), 2n ** 32n - 1n]) {
      const [a, b, c, d] = fourSquares(n)
      expect(a * a + b * b + c * c + d * d).toBe(n)
    }
  })
})
