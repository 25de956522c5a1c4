/**
 * Products of powers modulo an RSA modulus, the bulk of CL proof work (AnonCreds specification,
 * "Generate Presentation" / "Verify Presentation": every T value is such a product).
 *
 * - Fixed bases (the issuer key's S, Z, R_ctxt, R_i; a holder's A) keep lazily grown tables of
 *   base^(2^(6·i)) and of its inverse; all fixed-base factors of one product share one
 *   Brickell–Gordon–McCurley–Wilson bucket pass over signed digits: about Σ bits/6 + 64
 *   multiplications, no squarings.
 * - Variable bases (Â, the predicate commitments T_i) are exponentiated together with
 *   interleaved sliding windows: one squaring chain for all of them. The fixed-base factors can
 *   ride on that chain instead (made at least 252 bits long), through comb tables of
 *   base^(2^(252·k)) with 8-bit windows (10-bit for S, see `proof/key.ts`): about Σ bits/9
 *   multiplications; `value()` takes the cheaper way (the comb wherever a product has a long
 *   variable exponent or many fixed bits).
 * - `value()` writes each product as a straight-line program of multiplications
 *   (`MultiplicationProgram`) and runs it in one go: on BigInt, or in one call to the runtime's
 *   native arithmetic (`useNativeArithmetic`: on Node, GMP through an addon).
 * - Where the runtime has a native exponentiation (GMP's, or OpenSSL's alone), a product may take
 *   its variable factors from it, one call each, and its fixed factors from the tables alone;
 *   `value()` does so only when the counted cost is lower.
 *
 * Not constant-time (see the module README, "Side channels").
 */
import { bitLength, mod, modInverse, modPow, type MulMod, type NativeArithmetic, type NativePower } from '../math/index.ts'

const DIGIT_BITS = 6
const HALF_DIGIT = 1 << (DIGIT_BITS - 1)
/** Comb chunk: chunk k of an exponent multiplies base^(2^(252·k)) = power(42·k). */
const CHUNK_BITS = 42 * DIGIT_BITS
/** Default window of the comb chunks: odd powers up to 2^8 − 1 (128 entries per chunk). */
const COMB_WINDOW = 8

/**
 * A base with precomputed powers base^(2^(6·i)) mod n, extended on demand; reuse one per key.
 * `inverted()` gives (and caches) the table of base^-1 for negative exponents.
 */
export class FixedBase {
  readonly modulus: bigint
  private readonly powers: bigint[]
  private readonly chunks: bigint[][] = []
  private inverse?: FixedBase

  /**
   * @param combWindow bits of the comb windows (`chunk`): each chunk table holds 2^(combWindow−1)
   *   odd powers, and a fixed factor costs about bits/(combWindow + 1) multiplications on a chain.
   * @throws RangeError when `modulus` < 2.
   */
  constructor(
    base: bigint,
    modulus: bigint,
    readonly combWindow = COMB_WINDOW,
  ) {
    if (modulus < 2n) throw new RangeError('modulus must be > 1')
    this.modulus = modulus
    this.powers = [mod(base, modulus)]
  }

  /** The base itself, reduced. */
  get base(): bigint {
    return this.powers[0]!
  }

  /** base^(2^(6·i)) mod n. */
  power(i: number): bigint {
    const n = this.modulus
    while (this.powers.length <= i) {
      let x = this.powers[this.powers.length - 1]!
      for (let k = 0; k < DIGIT_BITS; k++) x = mulMod(x, x, n)
      this.powers.push(x)
    }
    return this.powers[i]!
  }

  /** Comb table of chunk k: the odd powers 1, 3, …, 2^combWindow − 1 of base^(2^(252·k)), made on first use. */
  chunk(k: number): bigint[] {
    this.chunks[k] ??= oddPowers(this.power((k * CHUNK_BITS) / DIGIT_BITS), (1 << this.combWindow) - 1, this.modulus)
    return this.chunks[k]!
  }

  /** The table of base^-1 (whose own inverse is this table). @throws RangeError when the base is not invertible. */
  inverted(): FixedBase {
    if (!this.inverse) {
      this.inverse = new FixedBase(invert(this.base, this.modulus), this.modulus, this.combWindow)
      this.inverse.inverse = this
    }
    return this.inverse
  }
}

const bigIntMulMod: MulMod = (a, b, n) => (a * b) % n
let mulMod: MulMod = bigIntMulMod
let invert: (a: bigint, n: bigint) => bigint = modInverse
let nativePower: NativePower | undefined
let nativeProduct: NativeArithmetic['product']

/**
 * Lets the products multiply with `arithmetic.mulMod` (tables included), run each product's
 * multiplications in one `arithmetic.product` call, invert with `arithmetic.invert`, and take
 * variable factors from `arithmetic.power` where that is cheaper by its declared costs.
 * Process-wide; `undefined`, or a member left out, goes back to BigInt (the default, and the only
 * way in workerd). Results are the same either way.
 */
export function useNativeArithmetic(arithmetic: NativeArithmetic | undefined): void {
  mulMod = arithmetic?.mulMod ?? bigIntMulMod
  invert = arithmetic?.invert ?? modInverse
  nativePower = arithmetic?.power
  nativeProduct = arithmetic?.product
}

/**
 * `base^exponent mod n` as one exponentiation (the issuer's and the holder's single powers,
 * `issuance/modulus.ts`): on the native power handed over with `useNativeArithmetic` when there
 * is one (GMP or OpenSSL on agent-node: 3–10x faster at 1,024–2,048 bits), else BigInt's
 * `modPow`. Same result either way; neither runs in constant time (nor did the BigInt code).
 * @param exponent >= 0
 */
export function power(base: bigint, exponent: bigint, n: bigint): bigint {
  if (!nativePower || exponent < 1n) return modPow(base, exponent, n)
  return nativePower.pow(mod(base, n), exponent, n)
}

/** BigInt multiplications of one variable factor on a squaring chain: its windows and their odd powers. */
function windowCost(bits: number): number {
  const window = variableWindow(bits)
  return bits / (window + 1) + (1 << (window - 1))
}

function variableWindow(bits: number): number {
  return bits <= 256 ? 4 : bits <= 1024 ? 5 : 6
}

/**
 * Accumulates factors base^exponent modulo n and evaluates their product in one pass.
 * Negative exponents use the inverse of the base (as OpenSSL's `BN_mod_exp` does in
 * anoncreds-clsignatures-rs); `value()` throws RangeError when such a base is not invertible.
 */
export class PowerProduct {
  private readonly fixedTerms: Array<[FixedBase, bigint]> = []
  private readonly variableTerms: Array<[bigint, bigint]> = []

  constructor(readonly modulus: bigint) {}

  /** Adds table^exponent (exponent of any sign and size). */
  fixed(table: FixedBase, exponent: bigint): this {
    if (table.modulus !== this.modulus) throw new RangeError('fixed base of another modulus')
    if (exponent !== 0n) this.fixedTerms.push([table, exponent])
    return this
  }

  /** Adds base^exponent for a base without a table (exponent of any sign and size). */
  variable(base: bigint, exponent: bigint): this {
    if (exponent !== 0n) this.variableTerms.push([base, exponent])
    return this
  }

  /**
   * The product of all factors, in [0, n). The fixed-base factors either ride on the squaring
   * chain of the variable ones through comb tables (the chain made at least 252 bits long), or
   * take one BGMW pass; whichever needs fewer multiplications by the count of exponent bits. With
   * a native exponentiation (`useNativeArithmetic`) the variable factors may instead be one native
   * call each, when that counts cheaper.
   */
  value(): bigint {
    const n = this.modulus
    const variable = this.variableTerms.map(([b, e]): [bigint, bigint] => (e < 0n ? [invert(b, n), -e] : [mod(b, n), e]))
    const chain = Math.max(0, ...variable.map(([, e]) => bitLength(e)))
    const fixedBits = this.fixedTerms.reduce((sum, [, e]) => sum + bitLength(e), 0)
    const combWindows = this.fixedTerms.reduce((sum, [table, e]) => sum + bitLength(e) / (table.combWindow + 1), 0)
    const hasFixed = this.fixedTerms.length > 0
    const combCost = Math.max(0, CHUNK_BITS - chain) + combWindows
    const bgmwCost = fixedBits / DIGIT_BITS + 2 * HALF_DIGIT
    // without variable factors on it, the comb needs a chain of its own
    const combAloneCost = CHUNK_BITS + combWindows
    const fixedCost = (alone: boolean) => (hasFixed ? Math.min(alone ? combAloneCost : combCost, bgmwCost) : 0)
    const program = new MultiplicationProgram()
    let result: number | undefined
    if (this.nativeIsCheaper(variable, chain, fixedCost(false), fixedCost(true))) {
      if (hasFixed) {
        result = combAloneCost < bgmwCost ? chainProduct([], this.fixedTerms, n, program) : fixedProduct(this.fixedTerms, program)
      }
      for (const [base, exponent] of variable) result = program.times(result, program.input(nativePower!.pow(base, exponent, n)))
    } else if (hasFixed && combCost < bgmwCost) {
      result = chainProduct(variable, this.fixedTerms, n, program)
    } else {
      result = fixedProduct(this.fixedTerms, program)
      if (variable.length > 0) result = program.times(result, chainProduct(variable, [], n, program))
    }
    return program.run(n, result)
  }

  /**
   * Whether the native backend is cheaper for this product, counted in BigInt multiplications:
   * one call per variable factor, their product, and the fixed factors alone (`fixedAloneCost`),
   * against the shared squaring chain (`chain` squarings), its windows and the fixed factors on it
   * (`fixedSharedCost`). Exponents as long as n stay on the chain (the native code does not take them).
   */
  private nativeIsCheaper(variable: Array<[bigint, bigint]>, chain: number, fixedSharedCost: number, fixedAloneCost: number): boolean {
    if (!nativePower || variable.length === 0) return false
    const bits = variable.map(([, e]) => bitLength(e))
    if (bits.some((b) => b >= bitLength(this.modulus))) return false
    const calls = bits.reduce((sum, b) => sum + nativePower!.costPerCall + b * nativePower!.costPerBit, 0)
    const chainCost = chain + bits.reduce((sum, b) => sum + windowCost(b), 0) + fixedSharedCost
    return calls + variable.length + fixedAloneCost < chainCost
  }
}

/**
 * BGMW with signed base-64 digits in [-31, 32]: bucket every table entry (or its inverse, for a
 * negative digit) by the digit's size, then Π d^bucket[d] with running products (2·32
 * multiplications instead of 2·63 for unsigned digits).
 */
function fixedProduct(terms: Array<[FixedBase, bigint]>, program: MultiplicationProgram): number | undefined {
  if (terms.length === 0) return undefined
  const buckets: Array<number | undefined> = new Array(HALF_DIGIT + 1)
  const put = (digit: number, entry: bigint) => {
    buckets[digit] = program.times(buckets[digit], program.input(entry))
  }
  for (const [signed, exponent] of terms) {
    const table = exponent < 0n ? signed.inverted() : signed
    const bits = (exponent < 0n ? -exponent : exponent).toString(2)
    let carry = 0
    let i = 0
    for (let end = bits.length; end > 0; i++, end -= DIGIT_BITS) {
      let digit = parseInt(bits.slice(Math.max(0, end - DIGIT_BITS), end), 2) + carry
      carry = digit > HALF_DIGIT ? 1 : 0
      digit -= carry << DIGIT_BITS
      if (digit > 0) put(digit, table.power(i))
      else if (digit < 0) put(-digit, table.inverted().power(i))
    }
    if (carry) put(1, table.power(i))
  }
  let running: number | undefined
  let result: number | undefined
  for (let d = HALF_DIGIT; d >= 1; d--) {
    running = program.times(running, buckets[d])
    result = program.times(result, running)
  }
  return result
}

/** Sliding windows of a binary exponent: [position of the window's lowest bit, odd window value]. */
function slidingWindows(bits: string, window: number): Array<[number, number]> {
  const windows: Array<[number, number]> = []
  let i = 0
  while (i < bits.length) {
    if (bits[i] === '0') {
      i++
      continue
    }
    let end = Math.min(i + window, bits.length)
    while (bits[end - 1] === '0') end--
    windows.push([bits.length - end, parseInt(bits.slice(i, end), 2)])
    i = end
  }
  return windows
}

/** [base, base^3, …, base^largest] (odd powers up to the odd `largest`). */
function oddPowers(base: bigint, largest: number, n: bigint): bigint[] {
  const odd: bigint[] = [base]
  if (largest < 3) return odd
  const square = mulMod(base, base, n)
  for (let k = 3; k <= largest; k += 2) odd.push(mulMod(odd[odd.length - 1]!, square, n))
  return odd
}

/**
 * Interleaved left-to-right sliding windows over all variable bases (one squaring chain); fixed
 * terms, when given, ride on the same chain through their comb tables (`FixedBase.chunk`): each
 * 252-bit chunk of an exponent is one more windowed term, with no squarings of its own. Written
 * into `program`; returns the operand of the product (undefined for no terms).
 */
function chainProduct(
  variableTerms: Array<[bigint, bigint]>,
  fixedTerms: Array<[FixedBase, bigint]>,
  n: bigint,
  program: MultiplicationProgram,
): number | undefined {
  // schedule[j] lists the operands to multiply in after the squaring at bit position j
  const schedule = new Map<number, number[]>()
  const add = (position: number, operand: number) => {
    const list = schedule.get(position)
    if (list) list.push(operand)
    else schedule.set(position, [operand])
  }
  let top = 0
  for (const [base, exponent] of variableTerms) {
    const bits = exponent.toString(2)
    const windows = slidingWindows(bits, variableWindow(bits.length))
    const odd = oddPowers(base, Math.max(...windows.map(([, value]) => value)), n).map((power) => program.input(power))
    for (const [position, value] of windows) add(position, odd[(value - 1) >> 1]!)
    top = Math.max(top, bits.length)
  }
  for (const [signed, exponent] of fixedTerms) {
    const table = exponent < 0n ? signed.inverted() : signed
    const bits = (exponent < 0n ? -exponent : exponent).toString(2)
    for (let k = 0, end = bits.length; end > 0; k++, end -= CHUNK_BITS) {
      const windows = slidingWindows(bits.slice(Math.max(0, end - CHUNK_BITS), end), table.combWindow)
      if (windows.length === 0) continue
      const odd = table.chunk(k)
      for (const [position, value] of windows) add(position, program.input(odd[(value - 1) >> 1]!))
    }
    top = Math.max(top, CHUNK_BITS)
  }
  let result: number | undefined
  for (let j = top - 1; j >= 0; j--) {
    if (result !== undefined) result = program.square(result)
    for (const operand of schedule.get(j) ?? []) result = program.times(result, operand)
  }
  return result
}

/**
 * A straight-line program of multiplications modulo n, run in one go by the native arithmetic
 * (`NativeArithmetic.product`: one crossing per product of powers) or by `mulMod`. Its values are
 * operands: x >= 0 is the result of operation x, x < 0 the input -x - 1 (a residue mod n); an
 * undefined operand stands for 1, so that a running product needs no special first step.
 */
class MultiplicationProgram {
  private readonly inputs: bigint[] = []
  /** Operand pairs: operation k multiplies ops[2k] by ops[2k + 1]. */
  private readonly ops: number[] = []

  /** The operand of `value` (a residue mod n). */
  input(value: bigint): number {
    return -this.inputs.push(value)
  }

  /** The operand of a·b (a new operation), or the other one when one is undefined (1). */
  times(a: number | undefined, b: number | undefined): number | undefined {
    if (a === undefined) return b
    if (b === undefined) return a
    this.ops.push(a, b)
    return this.ops.length / 2 - 1
  }

  /** The operand of a² (a new operation). */
  square(a: number): number {
    return this.times(a, a)!
  }

  /** The value of `result` in [0, n) after all operations (1 mod n when undefined). */
  run(n: bigint, result: number | undefined): bigint {
    if (result === undefined) return 1n % n
    if (nativeProduct) return nativeProduct(n, this.inputs, Int32Array.from(this.ops), result)
    const products: bigint[] = []
    const value = (x: number) => (x < 0 ? this.inputs[-x - 1]! : products[x]!)
    for (let i = 0; i < this.ops.length; i += 2) products.push(mulMod(value(this.ops[i]!), value(this.ops[i + 1]!), n))
    return value(result) % n
  }
}

/**
 * The inverses of all `values` modulo n with one modular inversion (Montgomery's trick).
 * @throws RangeError when one of them is not invertible.
 */
export function batchInverse(values: readonly bigint[], n: bigint): bigint[] {
  if (values.length === 0) return []
  const prefix: bigint[] = []
  let acc = 1n
  for (const v of values) {
    acc = mulMod(acc, mod(v, n), n)
    prefix.push(acc)
  }
  let inv = invert(acc, n)
  const out = new Array<bigint>(values.length)
  for (let i = values.length - 1; i > 0; i--) {
    out[i] = mulMod(inv, prefix[i - 1]!, n)
    inv = mulMod(inv, mod(values[i]!, n), n)
  }
  out[0] = inv
  return out
}
