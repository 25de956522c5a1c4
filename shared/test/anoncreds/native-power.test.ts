/**
 * OpenSSL's modular exponentiation (`math/native-power.ts`) against BigInt: the same results on
 * random inputs and edge values, the BigInt fallback where OpenSSL does not apply, and
 * `PowerProduct` giving the same products on every arithmetic (`useNativeArithmetic`: BigInt,
 * OpenSSL's exponentiation, GMP's addon). The whole anoncreds-rs vector presentation verifies on
 * each in revocation-verify.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  generateSafePrime,
  gmpArithmetic,
  modInverse,
  modPow,
  type NativeArithmetic,
  opensslPower,
  randomBits,
  randomInRange,
} from '../../src/anoncreds/math/index.ts'
import { FixedBase, PowerProduct, useNativeArithmetic } from '../../src/anoncreds/proof/index.ts'

// a CL-sized modulus: two 1,025-bit safe primes, n of 2,049–2,050 bits
const n = generateSafePrime(1025) * generateSafePrime(1025)
const native = opensslPower()!

describe('opensslPower', () => {
  it('is there on Node', () => {
    expect(native).toBeDefined()
  })

  it('equals modPow on random bases and exponents of every length below n', () => {
    for (const bits of [1, 2, 17, 64, 255, 256, 600, 852, 1024, 2000, 2048]) {
      const base = randomInRange(0n, n)
      const exponent = randomBits(bits) | 1n
      expect(native.pow(base, exponent, n), `${bits} bits`).toBe(modPow(base, exponent, n))
    }
  })

  it('equals modPow on edge values: bases 0, 1, n-1; exponents 1, 2, n-1; a short base (leading zero bytes)', () => {
    for (const base of [0n, 1n, n - 1n, 3n]) {
      for (const exponent of [1n, 2n, n - 1n, 65_537n]) expect(native.pow(base, exponent, n)).toBe(modPow(base, exponent, n))
    }
  })

  it('falls back to BigInt where OpenSSL does not apply: exponent >= n, an even modulus, a modulus over 3,072 bits', () => {
    const base = randomInRange(2n, n)
    for (const exponent of [n, n + 5n, randomBits(3000)]) expect(native.pow(base, exponent, n)).toBe(modPow(base, exponent, n))
    expect(native.pow(3n, 1000n, n + 1n)).toBe(modPow(3n, 1000n, n + 1n))
    const wide = (1n << 3100n) + 1n
    expect(native.pow(base, 123_456_789n, wide)).toBe(modPow(base, 123_456_789n, wide))
  })
})

describe('PowerProduct on native arithmetic', () => {
  afterEach(() => useNativeArithmetic(undefined))
  const gmp = gmpArithmetic()

  const product = (fixed: Array<[FixedBase, bigint]>, variable: Array<[bigint, bigint]>) => {
    const p = new PowerProduct(n)
    for (const [table, e] of fixed) p.fixed(table, e)
    for (const [base, e] of variable) p.variable(base, e)
    return p.value()
  }

  it('gives the BigInt products on OpenSSL and on GMP, whether the cost model picks native powers (declared costs) or always (costs 0)', () => {
    expect(gmp, 'the GMP addon is built (npm run build:native)').toBeDefined()
    const always = (arithmetic: NativeArithmetic): NativeArithmetic => ({
      ...arithmetic,
      power: { ...arithmetic.power!, costPerBit: 0, costPerCall: 0 },
    })
    const arithmetics: NativeArithmetic[] = [{ power: native }, always({ power: native }), gmp!, always(gmp!)]
    const tables = [0, 1, 2].map(() => new FixedBase(randomBits(2040), n))
    for (let round = 0; round < 4; round++) {
      const bases = [0, 1, 2, 3].map(() => randomBits(2040))
      // the verifier's shapes: Â with 852 bits, T^-c with 256, T^û with 592; fixed factors of 600–3,060 bits
      const fixed: Array<[FixedBase, bigint]> = [
        [tables[0]!, randomBits(3060)],
        [tables[1]!, -randomBits(600)],
        [tables[2]!, randomBits(256)],
      ]
      const variable: Array<[bigint, bigint]> = [
        [bases[0]!, randomBits(852)],
        [bases[1]!, -randomBits(256)],
        [bases[2]!, randomBits(592)],
        [bases[3]!, 5n],
      ]
      const cases: Array<[Array<[FixedBase, bigint]>, Array<[bigint, bigint]>]> = [
        [fixed, variable],
        [[], variable],
        [fixed.slice(2), variable.slice(0, 1)],
        [fixed, [[bases[0]!, n + 1n]]], // an exponent past n stays on the BigInt chain
      ]
      useNativeArithmetic(undefined)
      const expected = cases.map(([f, v]) => product(f, v))
      // check the reference too: the products by plain modPow
      expect(expected[1]).toBe(
        variable.reduce((acc, [b, e]) => (acc * (e < 0n ? modPow(modInverse(b, n), -e, n) : modPow(b, e, n))) % n, 1n),
      )
      for (const arithmetic of arithmetics) {
        useNativeArithmetic(arithmetic)
        expect(cases.map(([f, v]) => product(f, v))).toEqual(expected)
      }
    }
  })
})
