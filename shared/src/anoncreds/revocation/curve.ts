/**
 * AMCL's "BN254" pairing-friendly curve (the Nogami curve), which anoncreds-clsignatures-rs uses
 * for revocation: E: y² = x³ + 2 over Fp, the D-type sextic twist E': y² = x³ + 2/ξ over
 * Fp2 = Fp[i]/(i² + 1) with ξ = 1 + i, BN seed x = -(2^62 + 2^55 + 1).
 * Not Ethereum's alt_bn128, which `@noble/curves` exports as bn254.
 *
 * The field tower is noble's generic one: Fp6 = Fp2[v]/(v³ − ξ), Fp12 = Fp6[w]/(w² − v), so
 * w⁶ = ξ. AMCL's own tower (FP4 = FP2[s]/(s² − ξ), FP12 = FP4[t]/(t³ − s)) maps onto it by t ↦ w;
 * `encoding.ts` does that translation.
 */
import { tower12, type Fp12, type Fp2 } from '@noble/curves/abstract/tower.js'
import { weierstrass, type WeierstrassPoint } from '@noble/curves/abstract/weierstrass.js'
import { Field } from '@noble/curves/abstract/modular.js'

/** The base field's prime p = 36x⁴ − 36x³ + 24x² − 6x + 1. */
export const P = 0x2523648240000001ba344d80000000086121000000000013a700000000000013n
/** The group order r = 36x⁴ − 36x³ + 18x² − 6x + 1 (G1, G2 and GT). */
export const R = 0x2523648240000001ba344d8000000007ff9f800000000010a10000000000000dn
/** |x|, the absolute value of the (negative) BN seed. */
export const BN_X_ABS = (1n << 62n) + (1n << 55n) + 1n

let fp12: ReturnType<typeof tower12>['Fp12'] | undefined

const tower = tower12({
  ORDER: P,
  X_LEN: 63,
  FP2_NONRESIDUE: [1n, 1n],
  Fp2mulByB: (num: Fp2) => tower.Fp2.mul(num, TWIST_B),
  Fp12finalExponentiate: (num: Fp12) => finalExponentiate(num),
})
fp12 = tower.Fp12

/** Fp, Fp2, Fp6 and Fp12 of the tower. */
export const fields = { Fp: tower.Fp, Fp2: tower.Fp2, Fp6: tower.Fp6, Fp12: tower.Fp12 }

/** The twist's b' = 2/ξ = 1 − i. */
const TWIST_B: Fp2 = { c0: 1n, c1: P - 1n }

/** Scalars modulo r. */
export const Fr = Field(R)

/** G1 = E(Fp) (cofactor 1); AMCL's generator is (−1, 1). */
export const G1 = weierstrass({ p: P, n: R, h: 1n, a: 0n, b: 2n, Gx: P - 1n, Gy: 1n }, { Fp: tower.Fp, Fn: Fr })

/** G2 ⊂ E'(Fp2) (cofactor 2p − r), AMCL's generator. */
export const G2 = weierstrass(
  {
    p: tower.Fp2.ORDER,
    n: R,
    h: 2n * P - R,
    a: tower.Fp2.ZERO,
    b: TWIST_B,
    Gx: {
      c0: 0x061a10bb519eb62feb8d8c7e8c61edb6a4648bbb4898bf0d91ee4224c803fb2bn,
      c1: 0x0516aaf9ba737833310aa78c5982aa5b1f4d746bae3784b70d8c34c1e7d54cf3n,
    },
    Gy: {
      c0: 0x021897a06baf93439a90e096698c822329bd0ae6bdbe09bd19f0e07891cd2b9an,
      c1: 0x0ebb2b0e7c8b15268f6d4456f5f38d37b09006ffd739c9578a2d1aec6b3ace9bn,
    },
  },
  { Fp: tower.Fp2, Fn: Fr },
)

/** A point of G1. */
export type G1Point = WeierstrassPoint<bigint>
/** A point of G2 (on the twist). */
export type G2Point = WeierstrassPoint<Fp2>
/** An element of GT ⊂ Fp12*. */
export type GtElement = Fp12

/** GT element raised to a scalar (any non-negative bigint). */
export function gtPow(a: Fp12, e: bigint): Fp12 {
  return tower.Fp12.pow(a, e)
}

/**
 * The final exponentiation f^((p¹² − 1)/r), step for step as AMCL's `fexp` computes it for BN
 * curves (easy part (p⁶ − 1)(p² + 1), then the hard part of Scott et al., "On the final
 * exponentiation for calculating pairings on ordinary elliptic curves"), so the result is the
 * very element AMCL returns.
 */
export function finalExponentiate(m: Fp12): Fp12 {
  const F = fp12!
  const frob = (a: Fp12) => F.frobeniusMap(a, 1)
  const powX = (a: Fp12) => F._cyclotomicExp(a, BN_X_ABS)
  const sqr = (a: Fp12) => F._cyclotomicSquare(a)
  // easy part
  let r = F.mul(F.conjugate(m), F.inv(m))
  r = F.mul(F.frobeniusMap(r, 2), r)
  // hard part (AMCL, x negative: powers by |x| without conjugation)
  let lv = frob(r)
  let x0 = frob(lv)
  lv = F.mul(lv, r)
  x0 = frob(F.mul(x0, lv))
  const x1 = F.conjugate(r)
  let x4 = powX(r)
  const x3 = frob(x4)
  let x2 = powX(x4)
  const x5 = F.conjugate(x2)
  lv = powX(x2)
  x2 = frob(x2)
  r = F.conjugate(x2)
  x4 = F.mul(x4, r)
  x2 = frob(x2)
  r = frob(lv)
  lv = F.mul(lv, r)
  lv = sqr(lv)
  lv = F.mul(F.mul(lv, x4), x5)
  r = F.mul(F.mul(x3, x5), lv)
  lv = F.mul(lv, x2)
  r = sqr(r)
  r = F.mul(r, lv)
  r = sqr(r)
  lv = F.mul(r, x1)
  r = F.mul(r, x0)
  lv = sqr(lv)
  return F.mul(r, lv)
}
