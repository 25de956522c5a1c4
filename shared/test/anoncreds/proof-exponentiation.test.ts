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
      expect(p.value()).toBe(ref([[bases[0]!, exps[1]!], [bases[1]!, exps[2]!], [bases[2]!, exps[4]!], [bases[3]!, exps[0]!], [bases[2]!, exps[3]!], [bases[1]!, exps[5]!]]))
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
