/**
 * Native arithmetic for the products of `proof/exponentiation.ts` (`NativeArithmetic`, handed over
 * with `useNativeArithmetic`): here, single modular exponentiations in the runtime's own
 * big-number code (GMP's addon, which also multiplies, is `gmp-arithmetic.ts`). On Node that is
 * OpenSSL, through the one public API that exponentiates by any exponent: a raw RSA public-key
 * operation. `publicEncrypt` with no
 * padding under the public key (n, e) computes base^e mod n; OpenSSL accepts any 1 <= e < n when
 * n has at most 3,072 bits, and exponentiates in variable time (a public operation), like the
 * BigInt code it replaces. Found without importing `node:` modules
 * (`process.getBuiltinModule`), so the engine still loads in workerd, which has none (there the
 * products stay on BigInt).
 *
 * Measured on Node 20.20 (x64, bench/README.md "anoncreds"): about 2 µs per exponent bit and
 * 60 µs per call (key import, Montgomery set-up) for a 2,050-bit modulus, against 3.6–5 µs for
 * one BigInt multiplication and reduction `a * b % n`: the costs declared below, in those units.
 */
import { modPow } from './bigint.ts'
import { nodeBuiltin } from './node-builtin.ts'
import { bigIntToBytes, bytesToBigInt } from './random.ts'

/**
 * A native `base^exponent mod modulus`, with its cost counted in the modular multiplications of
 * the arithmetic it comes with (`NativeArithmetic.mulMod`, BigInt's by default).
 */
export interface NativePower {
  /**
   * `base^exponent mod modulus` for 0 <= base < modulus and exponent >= 1 (the same result as
   * `modPow`, which it falls back to where the native code does not apply).
   */
  pow(base: bigint, exponent: bigint, modulus: bigint): bigint
  /** Cost of one exponent bit, in modular multiplications of the same modulus. */
  costPerBit: number
  /** Cost of a call besides its bits, in the same units. */
  costPerCall: number
}

/** `a * b mod n` for a, b >= 0 and n > 0, in [0, n). */
export type MulMod = (a: bigint, b: bigint, n: bigint) => bigint

/** A runtime's native modular arithmetic for the engine's products of powers. */
export interface NativeArithmetic {
  /** Replaces BigInt's `a * b % n`; the unit every declared cost is counted in. */
  mulMod?: MulMod
  /** Single exponentiations, with their costs counted in `mulMod`'s multiplications. */
  power?: NativePower
  /** a^-1 mod n (as `modInverse`). @throws RangeError when a is not invertible mod n. */
  invert?: (a: bigint, n: bigint) => bigint
  /**
   * Runs a straight-line program of multiplications mod n in one call: `ops` holds operand pairs
   * (a, b), operation k computing a * b mod n; an operand x >= 0 is the result of operation x
   * (an earlier one), x < 0 is inputs[-x - 1] (a residue mod n). Returns the value of the operand
   * `result` in [0, n).
   * @throws RangeError when an operand refers to no input or earlier operation.
   */
  product?: (n: bigint, inputs: readonly bigint[], ops: Int32Array, result: number) => bigint
}

/** Largest modulus for which OpenSSL takes an RSA public exponent of any size below it. */
const MAX_MODULUS_BITS = 3_072

interface NodeCrypto {
  createPublicKey(options: { key: { kty: 'RSA'; n: string; e: string }; format: 'jwk' }): unknown
  publicEncrypt(options: { key: unknown; padding: number }, data: Uint8Array): Uint8Array
  constants: { RSA_NO_PADDING: number }
}

interface NodeBuffer {
  Buffer: { from(bytes: Uint8Array): { toString(encoding: 'base64url'): string } }
}

/** OpenSSL's modular exponentiation on Node, or undefined where `node:crypto` is absent (workerd). */
export function opensslPower(): NativePower | undefined {
  const crypto = nodeBuiltin<NodeCrypto>('node:crypto')
  const buffer = nodeBuiltin<NodeBuffer>('node:buffer')
  if (!crypto?.publicEncrypt || !crypto.createPublicKey || !buffer) return undefined
  const padding = crypto.constants.RSA_NO_PADDING
  const jwk = (value: bigint) => buffer.Buffer.from(bigIntToBytes(value)).toString('base64url')
  return {
    costPerBit: 0.45,
    costPerCall: 15,
    pow(base, exponent, modulus) {
      const bits = modulus.toString(2).length
      if ((modulus & 1n) === 0n || bits > MAX_MODULUS_BITS || exponent < 1n || exponent >= modulus || base < 0n || base >= modulus) {
        return modPow(base, exponent, modulus)
      }
      // the input block is exactly as long as the modulus, big-endian
      const block = new Uint8Array(Math.ceil(bits / 8))
      const bytes = bigIntToBytes(base)
      block.set(bytes, block.length - bytes.length)
      const key = crypto.createPublicKey({ key: { kty: 'RSA', n: jwk(modulus), e: jwk(exponent) }, format: 'jwk' })
      return bytesToBigInt(crypto.publicEncrypt({ key, padding }, block))
    },
  }
}
