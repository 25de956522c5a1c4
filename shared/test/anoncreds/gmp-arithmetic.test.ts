/**
 * The GMP addon (`shared/native/gmp-arithmetic/`, loaded by `math/gmp-arithmetic.ts`) against
 * BigInt: `mulMod`, `powMod`, `invert` and `product` give BigInt's results on random and edge inputs, refuse
 * bad arguments with an error naming them (and the process goes on), and each worker thread gets
 * its own scratch integers. `npm ci` builds the addon (`npm run build:native`); these tests fail
 * when it is missing.
 */
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { gcd, gmpAddonFile, gmpArithmetic, modInverse, modPow, randomBits, randomInRange } from '../../src/anoncreds/math/index.ts'

const gmp = gmpArithmetic()
// a 2,048-bit odd modulus, as CL moduli are (their factors do not matter here)
const n = randomBits(2048) | (1n << 2047n) | 1n

describe('the GMP addon', () => {
  it('is built and loads on Node', () => {
    expect(gmp, `the GMP addon is at ${fileURLToPath(gmpAddonFile())} (npm run build:native)`).toBeDefined()
  })

  it('mulMod equals a * b % n for random operands of every size, operands past n and edge values', () => {
    const values = [0n, 1n, 2n, n - 1n, n, n + 1n, ...[1, 63, 64, 65, 1000, 2047, 2048, 3000, 4100].map(randomBits)]
    for (const a of values) for (const b of values) expect(gmp!.mulMod!(a, b, n)).toBe((a * b) % n)
    expect(gmp!.mulMod!(5n, 7n, 1n)).toBe(0n)
    expect(gmp!.mulMod!(1n << 70n, 3n, 1n << 64n)).toBe(0n)
  })

  it('power equals modPow, an even modulus going to modPow', () => {
    for (const bits of [1, 17, 256, 852, 2047]) {
      const base = randomInRange(0n, n)
      const exponent = randomBits(bits) | 1n
      expect(gmp!.power!.pow(base, exponent, n), `${bits} bits`).toBe(modPow(base, exponent, n))
    }
    expect(gmp!.power!.pow(0n, 5n, n)).toBe(0n)
    expect(gmp!.power!.pow(3n, 100n, 1024n)).toBe(modPow(3n, 100n, 1024n))
  })

  it('invert equals modInverse, and refuses a value sharing a factor with n', () => {
    // n is random, not prime: a random value is drawn again until it is a unit modulo n
    const unit = (draw: () => bigint) => {
      for (;;) {
        const a = draw()
        if (gcd(a, n) === 1n) return a
      }
    }
    const units = [1n, 2n, n - 1n, unit(() => randomInRange(2n, n)), unit(() => randomBits(3000))]
    for (const a of units) expect(gmp!.invert!(a, n)).toBe(modInverse(a, n))
    const negative = -unit(() => randomBits(64))
    expect(gmp!.invert!(negative, n)).toBe(modInverse(negative, n))
    expect(() => gmp!.invert!(6n, 9n)).toThrow(new RangeError('value has no inverse modulo modulus'))
    expect(() => gmp!.invert!(0n, n)).toThrow(RangeError)
  })

  it('product runs a program of multiplications as BigInt would: squarings, inputs used twice, a lone input', () => {
    const [a, b, c] = [randomInRange(0n, n), randomInRange(0n, n), randomInRange(0n, n)]
    // inputs are operands -1, -2, -3; operation k is operand k:
    // 0 = a·b, 1 = 0², 2 = 1·c, 3 = 2·a (a read again after other values came and went)
    const ops = Int32Array.from([-1, -2, 0, 0, 1, -3, 2, -1])
    const ab = (a * b) % n
    expect(gmp!.product!(n, [a, b, c], ops, 3)).toBe((((((ab * ab) % n) * c) % n) * a) % n)
    // a result read before the last operation, and a lone input (reduced)
    expect(gmp!.product!(n, [a, b, c], ops, 0)).toBe(ab)
    expect(gmp!.product!(n, [a + n], new Int32Array(0), -1)).toBe(a)
  })

  it('product gives what BigInt gives on a long random program (thousands of operations, values dying early)', () => {
    const inputs = Array.from({ length: 200 }, () => randomInRange(0n, n))
    const ops: number[] = []
    const values: bigint[] = []
    const value = (x: number) => (x < 0 ? inputs[-x - 1]! : values[x]!)
    const pick = (k: number) =>
      k === 0 || Math.random() < 0.5 ? -1 - Math.floor(Math.random() * inputs.length) : k - 1 - Math.floor(Math.random() * Math.min(k, 8))
    for (let k = 0; k < 3000; k++) {
      const a = pick(k)
      const b = Math.random() < 0.3 ? a : pick(k)
      ops.push(a, b)
      values.push((value(a) * value(b)) % n)
    }
    expect(gmp!.product!(n, inputs, Int32Array.from(ops), 2999)).toBe(values[2999])
  })

  it('refuses bad arguments with an error naming them, and goes on working', () => {
    expect(() => gmp!.mulMod!(-1n, 2n, n)).toThrow(new RangeError('a: expected a BigInt >= 0'))
    expect(() => gmp!.mulMod!(2n, 5 as unknown as bigint, n)).toThrow(new TypeError('b: expected a BigInt >= 0'))
    expect(() => gmp!.mulMod!(2n, 3n, 0n)).toThrow(new RangeError('n: must be > 0'))
    const product = gmp!.product!
    expect(() => product(n, [1n], Int32Array.from([-1, 0]), 0)).toThrow(RangeError) // operation 0 reads itself
    expect(() => product(n, [1n], Int32Array.from([-1, -2]), 0)).toThrow(RangeError) // no input 1
    expect(() => product(n, [1n], Int32Array.from([-1, -1]), 1)).toThrow(RangeError) // result: no operation 1
    expect(() => product(n, [1n], [-1, -1] as unknown as Int32Array, 0)).toThrow(TypeError)
    expect(() => product(n, [1n], Int32Array.from([-1]), -1)).toThrow(TypeError) // not pairs
    expect(() => product(n, ['1'] as unknown as bigint[], Int32Array.from([-1, -1]), 0)).toThrow(TypeError)
    expect(gmp!.mulMod!(6n, 7n, 11n)).toBe(9n)
  })

  it('works in worker threads, each with its own scratch integers, alongside the main thread', async () => {
    const code = `
      const { parentPort, workerData } = require('node:worker_threads')
      const addon = require(workerData.path)
      let x = workerData.x
      for (let i = 0; i < 2000; i++) x = addon.mulMod(x, workerData.y, workerData.n)
      parentPort.postMessage(x)
    `
    const x = randomInRange(0n, n)
    const ys = [randomInRange(0n, n), randomInRange(0n, n)]
    const expected = ys.map((y) => {
      let v = x
      for (let i = 0; i < 2000; i++) v = (v * y) % n
      return v
    })
    const results = ys.map(
      (y) =>
        new Promise<bigint>((resolve, reject) => {
          const worker = new Worker(code, { eval: true, workerData: { path: fileURLToPath(gmpAddonFile()), x, y, n } })
          worker.once('message', resolve)
          worker.once('error', reject)
        }),
    )
    let mine = x
    for (let i = 0; i < 2000; i++) mine = gmp!.mulMod!(mine, ys[0]!, n)
    expect(mine).toBe(expected[0])
    expect(await Promise.all(results)).toEqual(expected)
  })
})
