/**
 * Products of powers modulo an RSA modulus, the bulk of CL proof work (AnonCreds specification,
 * "Generate Presentation" / "Verify Presentation": every T value is such a product).
 *
 * - Fixed bases (the issuer key's S, Z, R_ctxt, R_i; a holder's A) keep lazily grown tables of
 *   base^(2^(6·i)) and of its inverse; all fixed-base factors of one product share one
 *   Brickell–Gordon–McCurley–Wilson bucket pass over signed digits: about Σ bits/6 + 64
 *   multiplications, no squarings.
 * - Variable bases (Â, the predicate commitments T_i) are exponentiated together with
 *   interleaved sliding windows: one squaring chain for all of them.
 *
 * Not constant-time (see the module README, "Side channels").
 */
import { mod, modInverse } from '../math/index.ts'

const DIGIT_BITS = 6
const HALF_DIGIT = 1 << (DIGIT_BITS - 1)

/**
 * A base with precomputed powers base^(2^(6·i)) mod n, extended on demand; reuse one per key.
 * `inverted()` gives (and caches) the table of base^-1 for negative exponents.
 */
export class FixedBase {
  readonly modulus: bigint
  private readonly powers: bigint[]
  private inverse?: FixedBase

  /** @throws RangeError when `modulus` < 2. */
  constructor(base: bigint, modulus: bigint) {
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
      for (let k = 0; k < DIGIT_BITS; k++) x = (x * x) % n
      this.powers.push(x)
    }
    return this.powers[i]!
  }

  /** The table of base^-1 (whose own inverse is this table). @throws RangeError when the base is not invertible. */
  inverted(): FixedBase {
    if (!this.inverse) {
      this.inverse = new FixedBase(modInverse(this.base, this.modulus), this.modulus)
      this.inverse.inverse = this
    }
    return this.inverse
  }
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

  /** The product of all factors, in [0, n). */
  value(): bigint {
    const n = this.modulus
    const fixed = fixedProduct(this.fixedTerms, n)
    const variable = variableProduct(
      this.variableTerms.map(([b, e]): [bigint, bigint] => (e < 0n ? [modInverse(b, n), -e] : [mod(b, n), e])),
      n,
    )
    if (fixed === undefined) return variable ?? 1n % n
    return variable === undefined ? fixed : (fixed * variable) % n
  }
}

/**
 * BGMW with signed base-64 digits in [-31, 32]: bucket every table entry (or its inverse, for a
 * negative digit) by the digit's size, then Π d^bucket[d] with running products (2·32
 * multiplications instead of 2·63 for unsigned digits).
 */
function fixedProduct(terms: Array<[FixedBase, bigint]>, n: bigint): bigint | undefined {
  if (terms.length === 0) return undefined
  const buckets: Array<bigint | undefined> = new Array(HALF_DIGIT + 1)
  const put = (digit: number, entry: bigint) => {
    const b = buckets[digit]
    buckets[digit] = b === undefined ? entry : (b * entry) % n
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
  let running: bigint | undefined
  let result: bigint | undefined
  for (let d = HALF_DIGIT; d >= 1; d--) {
    const b = buckets[d]
    if (b !== undefined) running = running === undefined ? b : (running * b) % n
    if (running !== undefined) result = result === undefined ? running : (result * running) % n
  }
  return result
}

/** Interleaved left-to-right sliding windows over all variable bases (one squaring chain). */
function variableProduct(terms: Array<[bigint, bigint]>, n: bigint): bigint | undefined {
  if (terms.length === 0) return undefined
  // schedule[j] lists the table entries to multiply in after the squaring at bit position j
  const schedule = new Map<number, bigint[]>()
  let top = 0
  for (const [base, exponent] of terms) {
    const bits = exponent.toString(2)
    const window = bits.length <= 256 ? 4 : bits.length <= 1024 ? 5 : 6
    const square = (base * base) % n
    const odd: bigint[] = [base]
    const used = new Set<number>()
    let i = 0
    const windows: Array<[number, number]> = []
    while (i < bits.length) {
      if (bits[i] === '0') {
        i++
        continue
      }
      let end = Math.min(i + window, bits.length)
      while (bits[end - 1] === '0') end--
      const value = parseInt(bits.slice(i, end), 2)
      windows.push([bits.length - end, value])
      used.add(value)
      i = end
    }
    const largest = Math.max(...used)
    for (let k = 3; k <= largest; k += 2) odd.push((odd[odd.length - 1]! * square) % n)
    for (const [position, value] of windows) {
      const list = schedule.get(position)
      const entry = odd[(value - 1) >> 1]!
      if (list) list.push(entry)
      else schedule.set(position, [entry])
    }
    top = Math.max(top, bits.length)
  }
  let result: bigint | undefined
  for (let j = top - 1; j >= 0; j--) {
    if (result !== undefined) result = (result * result) % n
    const list = schedule.get(j)
    if (!list) continue
    for (const entry of list) result = result === undefined ? entry : (result * entry) % n
  }
  return result
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
    acc = (acc * mod(v, n)) % n
    prefix.push(acc)
  }
  let inv = modInverse(acc, n)
  const out = new Array<bigint>(values.length)
  for (let i = values.length - 1; i > 0; i--) {
    out[i] = (inv * prefix[i - 1]!) % n
    inv = (inv * mod(values[i]!, n)) % n
  }
  out[0] = inv
  return out
}
