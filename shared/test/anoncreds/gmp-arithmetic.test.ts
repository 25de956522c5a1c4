/**
 * The GMP addon (`shared/native/gmp-arithmetic/`, loaded by `math/gmp-arithmetic.ts`) against
 * BigInt: `mulMod`, `powMod` and `product` give BigInt's results on random and edge inputs, refuse
 * bad arguments with an error naming them (and the process goes on), and each worker thread gets
 * its own scratch integers. `npm ci` builds the addon (`npm run build:native`); these tests fail
 * when it is missing.
 */
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { GMP_ADDON_FILE, gmpArithmetic, modPow, randomBits, randomInRange } from '../../src/anoncreds/math/index.ts'

const gmp = gmpArithmetic()
// a 2,048-bit odd modulus, as CL moduli are (their factors do not matter here)
const n = randomBits(2048) | (1n << 2047n) | 1n

describe('the GMP addon', () => {
  it('is built and loads on Node', () => {
    expect(gmp, `the GMP addon is at ${fileURLToPath(GMP_ADDON_FILE)} (npm run build:native)`).toBeDefined()
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

  it('product runs a program of multiplications as BigInt would: squarings, reused registers, a lone input', () => {
    const [a, b, c] = [randomInRange(0n, n), randomInRange(0n, n), randomInRange(0n, n)]
    // r3 = a·b, r4 = r3², r3 = r4·c (a register written again), result r3
    const registers = [a, b, c, undefined, undefined]
    const ops = Int32Array.from([3, 0, 1, 4, 3, 3, 3, 4, 2])
    const ab = (a * b) % n
    expect(gmp!.product!(n, registers, ops, 3)).toBe((((ab * ab) % n) * c) % n)
    expect(gmp!.product!(n, [a + n], new Int32Array(0), 0)).toBe(a)
  })

  it('refuses bad arguments with an error naming them, and goes on working', () => {
    expect(() => gmp!.mulMod!(-1n, 2n, n)).toThrow(new RangeError('a: expected a BigInt >= 0'))
    expect(() => gmp!.mulMod!(2n, 5 as unknown as bigint, n)).toThrow(new TypeError('b: expected a BigInt >= 0'))
    expect(() => gmp!.mulMod!(2n, 3n, 0n)).toThrow(new RangeError('n: must be > 0'))
    const addon = gmp!.product!
    expect(() => addon(n, [1n, undefined], Int32Array.from([1, 1, 0]), 1)).toThrow(RangeError) // reads r1 unset
    expect(() => addon(n, [1n], Int32Array.from([0, 0, 5]), 0)).toThrow(RangeError) // r5 out of range
    expect(() => addon(n, [1n, undefined], Int32Array.from([1, 0, 0]), 2)).toThrow(RangeError) // result out of range
    expect(() => addon(n, [1n], [0, 0, 0] as unknown as Int32Array, 0)).toThrow(TypeError)
    expect(() => addon(n, [1n], Int32Array.from([0, 0]), 0)).toThrow(TypeError) // not triples
    expect(() => addon(n, ['1'] as unknown as bigint[], new Int32Array(0), 0)).toThrow(TypeError)
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
          const worker = new Worker(code, { eval: true, workerData: { path: fileURLToPath(GMP_ADDON_FILE), x, y, n } })
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
