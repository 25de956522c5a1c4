import { describe, expect, it } from 'vitest'
import { generateSafePrime, modInverse, modPow, randomBits } from '../../src/anoncreds/math/index.ts'
import { batchInverse, FixedBase, PowerProduct } from '../../src/anoncreds/proof/index.ts'

// an RSA-style modulus like a CL key's n: random values are invertible unless they hit p or q
const n = generateSafePrime(1024) * generateSafePrime(1024)
const ref = (terms: Array<[bigint, bigint]>) => terms.reduce((acc, [b, e]) => (acc * modPow(b, e, n)) % n, 1n)

describe('PowerProduct', () => {
  it('matches modPow for fixed, variable and mixed products, all exponent signs and sizes', () => {
    for (let round = 0; round < 5; round++) {
      const bases = [0, 1, 2, 3].map(() => randomBits(2040))
      const exps = [randomBits(3100), randomBits(700), -randomBits(500), randomBits(64), 1n, randomBits(256)]
      const tables = bases.map((b) => new FixedBase(b, n))
      expect(new PowerProduct(n).fixed(tables[0]!, exps[0]!).value()).toBe(ref([[bases[0]!, exps[0]!]]))
      expect(new PowerProduct(n).variable(bases[1]!, exps[2]!).value()).toBe(ref([[bases[1]!, exps[2]!]]))
      const p = new PowerProduct(n)
        .fixed(tables[0]!, exps[1]!)
        .fixed(tables[1]!, exps[2]!)
        .fixed(tables[2]!, exps[4]!)
        .variable(bases[3]!, exps[0]!)
        .variable(bases[2]!, exps[3]!)
        .variable(bases[1]!, exps[5]!)
      expect(p.value()).toBe(
        ref([
          [bases[0]!, exps[1]!],
          [bases[1]!, exps[2]!],
          [bases[2]!, exps[4]!],
          [bases[3]!, exps[0]!],
          [bases[2]!, exps[3]!],
          [bases[1]!, exps[5]!],
        ]),
      )
    }
  })

  it('matches modPow on signed-digit carries and comb chunk edges, with and without a long variable chain, for 8- and 10-bit comb windows', () => {
    const ones = (bits: number) => (1n << BigInt(bits)) - 1n
    // all-ones exponents carry through every signed base-64 digit; 252 bits is one comb chunk
    const shapes = [ones(6), 1n << 6n, ones(252), 1n << 252n, ones(504), ones(3100), (1n << 3100n) + 1n, 33n, 32n, 31n, ones(10), 1n << 10n]
    const base = randomBits(2040)
    const other = randomBits(2040)
    for (const [table, e] of [8, 10].flatMap((window) => shapes.map((e) => [new FixedBase(base, n, window), e] as const))) {
      for (const exponent of [e, -e]) {
        // alone and with a short variable factor: BGMW or comb, whichever is cheaper
        expect(new PowerProduct(n).fixed(table, exponent).value()).toBe(ref([[base, exponent]]))
        expect(new PowerProduct(n).fixed(table, exponent).variable(other, 5n).value()).toBe(
          ref([
            [base, exponent],
            [other, 5n],
          ]),
        )
        // with a 300-bit variable exponent: the fixed factor rides on its squaring chain
        const long = randomBits(300) | (1n << 299n)
        expect(new PowerProduct(n).fixed(table, exponent).variable(other, long).value()).toBe(
          ref([
            [base, exponent],
            [other, long],
          ]),
        )
      }
    }
  })

  it('gives 1 for an empty product and ignores zero exponents', () => {
    expect(new PowerProduct(n).value()).toBe(1n)
    expect(new PowerProduct(n).variable(5n, 0n).fixed(new FixedBase(7n, n), 0n).value()).toBe(1n)
  })

  it('throws RangeError for a negative power of a non-invertible base', () => {
    expect(() => new PowerProduct(n).variable(0n, -1n).value()).toThrow(RangeError)
  })
})

describe('batchInverse', () => {
  it('inverts every value', () => {
    const values = [0, 1, 2, 3, 4].map(() => randomBits(2000))
    expect(batchInverse(values, n)).toEqual(values.map((v) => modInverse(v, n)))
  })
})
