/**
 * The optimal-ate pairing on AMCL's BN254 (anoncreds-clsignatures-rs `Pair::pair`, `Pair::pair2`,
 * AMCL `pair::ate`, `ate2`, `fexp`): Miller loop over |6x + 2| (x < 0, so the result is
 * conjugated and the point negated), the two Frobenius line fix-ups, then AMCL's final
 * exponentiation. Lines are evaluated with the untwisting (x, y) ↦ (x·w², y·w³), the same as
 * AMCL's t ↦ w; scalings of a line by elements of a proper subfield (and vertical lines) are
 * removed by the final exponentiation, so only the divisor of each line matters.
 * Public inputs only: this is verifier code and is not constant-time.
 */
import type { Fp12 as Fp12Element, Fp2 as Fp2Element } from '@noble/curves/abstract/tower.js'
import { BN_X_ABS, fields, finalExponentiate, P, type G1Point, type G2Point, type GtElement } from './curve.ts'

const { Fp, Fp2, Fp12 } = fields

/** |6x + 2| = 6|x| − 2 for the negative seed. */
const ATE_LOOP = 6n * BN_X_ABS - 2n
const ATE_BITS = ATE_LOOP.toString(2)

/** ψ = twist ∘ Frobenius ∘ untwist on E'(Fp2): (x̄·ξ^((p−1)/3), ȳ·ξ^((p−1)/2)). */
const XI: Fp2Element = { c0: 1n, c1: 1n }
const PSI_X = Fp2.pow(XI, (P - 1n) / 3n)
const PSI_Y = Fp2.pow(XI, (P - 1n) / 2n)

interface Affine2 {
  x: Fp2Element
  y: Fp2Element
}

const conj = (a: Fp2Element): Fp2Element => ({ c0: a.c0, c1: Fp.neg(a.c1) })

function psi(q: Affine2): Affine2 {
  return { x: Fp2.mul(conj(q.x), PSI_X), y: Fp2.mul(conj(q.y), PSI_Y) }
}

/** The line of slope λ through T (both on the twist), evaluated at P = (xP, yP), as an Fp12. */
function line(lambda: Fp2Element, t: Affine2, xP: bigint, yP: bigint): Fp12Element {
  // l = yP − λ·xP·w + (λ·xT − yT)·w³ ; in noble's basis w = c1.c0, w³ = v·w = c1.c1
  return {
    c0: { c0: { c0: yP, c1: 0n }, c1: Fp2.ZERO, c2: Fp2.ZERO },
    c1: {
      c0: Fp2.neg(Fp2.mul(lambda, xP)),
      c1: Fp2.sub(Fp2.mul(lambda, t.x), t.y),
      c2: Fp2.ZERO,
    },
  }
}

/** One Miller-loop accumulator: T and the lines collected for one (P, Q) pair. */
class MillerState {
  t: Affine2 | undefined
  constructor(
    readonly q: Affine2,
    readonly xP: bigint,
    readonly yP: bigint,
  ) {
    this.t = q
  }

  /** T ← 2T; the tangent line at T (1 when T is 2-torsion or infinity: vertical). */
  double(): Fp12Element {
    const t = this.t
    if (t === undefined || Fp2.is0(t.y)) {
      this.t = undefined
      return Fp12.ONE
    }
    const lambda = Fp2.div(Fp2.mul(Fp2.sqr(t.x), 3n), Fp2.add(t.y, t.y))
    const l = line(lambda, t, this.xP, this.yP)
    const x = Fp2.sub(Fp2.sqr(lambda), Fp2.add(t.x, t.x))
    this.t = { x, y: Fp2.sub(Fp2.mul(lambda, Fp2.sub(t.x, x)), t.y) }
    return l
  }

  /** T ← T + S; the line through T and S (1 when it is vertical). */
  add(s: Affine2): Fp12Element {
    const t = this.t
    if (t === undefined) {
      this.t = s
      return Fp12.ONE
    }
    if (Fp2.eql(t.x, s.x)) {
      if (Fp2.eql(t.y, s.y)) return this.double()
      this.t = undefined
      return Fp12.ONE
    }
    const lambda = Fp2.div(Fp2.sub(s.y, t.y), Fp2.sub(s.x, t.x))
    const l = line(lambda, t, this.xP, this.yP)
    const x = Fp2.sub(Fp2.sub(Fp2.sqr(lambda), t.x), s.x)
    this.t = { x, y: Fp2.sub(Fp2.mul(lambda, Fp2.sub(t.x, x)), t.y) }
    return l
  }
}

/**
 * The product of the Miller functions of the pairs (before the final exponentiation), pairs
 * with a point at infinity skipped (their pairing is 1).
 */
export function millerLoop(pairs: ReadonlyArray<readonly [G1Point, G2Point]>): Fp12Element {
  const states: MillerState[] = []
  for (const [p, q] of pairs) {
    if (p.is0() || q.is0()) continue
    const a = p.toAffine()
    states.push(new MillerState(q.toAffine(), a.x, a.y))
  }
  let f = Fp12.ONE
  if (states.length === 0) return f
  for (let i = 1; i < ATE_BITS.length; i++) {
    f = Fp12.sqr(f)
    for (const s of states) f = Fp12.mul(f, s.double())
    if (ATE_BITS[i] === '1') for (const s of states) f = Fp12.mul(f, s.add(s.q))
  }
  // x < 0: f_{6x+2} = 1/f_{|6x+2|} up to verticals, and T = [6x+2]Q = −[|6x+2|]Q
  f = Fp12.conjugate(f)
  for (const s of states) {
    if (s.t !== undefined) s.t = { x: s.t.x, y: Fp2.neg(s.t.y) }
    const q1 = psi(s.q)
    const q2 = psi(q1)
    f = Fp12.mul(f, s.add(q1))
    f = Fp12.mul(f, s.add({ x: q2.x, y: Fp2.neg(q2.y) }))
  }
  return f
}

/** e(P, Q) (anoncreds-clsignatures-rs `Pair::pair`). */
export function pair(p: G1Point, q: G2Point): GtElement {
  return finalExponentiate(millerLoop([[p, q]]))
}

/** e(P, Q)·e(R, S) with one final exponentiation (anoncreds-clsignatures-rs `Pair::pair2`). */
export function pair2(p: G1Point, q: G2Point, r: G1Point, s: G2Point): GtElement {
  return finalExponentiate(
    millerLoop([
      [p, q],
      [r, s],
    ]),
  )
}

/** Whether a GT element is 1. */
export function isGtOne(a: GtElement): boolean {
  return Fp12.eql(a, Fp12.ONE)
}
