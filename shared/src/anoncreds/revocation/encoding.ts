/**
 * The forms AMCL (milagro amcl 0.2, through anoncreds-clsignatures-rs `PointG1`, `PointG2`,
 * `Pair`, `GroupOrderElement`) writes curve values in:
 * - strings (`to_string`, JSON): each field element as `<excess> <hex>` where the hex is the
 *   Montgomery form x·2^280 mod p (the excess is a decimal count, ignored); G1 points as the
 *   homogeneous projective `X Y Z` (x = X/Z, y = Y/Z), G2 the same over Fp2 (`a b` per
 *   coordinate, x = a + b·i), GT as 12 field elements in AMCL's tower order; scalars as hex;
 * - bytes (`to_bytes`, hashed into c_hash and used by msgpack): G1 `04 ‖ x ‖ y` zero-padded to
 *   128 bytes, G2 `x.a ‖ x.b ‖ y.a ‖ y.b` (128 bytes), GT the 12 coefficients (384 bytes)
 *   zero-padded to 512, scalars 32 bytes; all big-endian 32-byte canonical values.
 */
import type { Fp12 as Fp12Element, Fp2 as Fp2Element } from '@noble/curves/abstract/tower.js'
import { fields, G1, G2, P, R, type G1Point, type G2Point, type GtElement } from './curve.ts'

const { Fp, Fp2, Fp12: F12 } = fields

/** A revocation value that is not a valid encoding (or not a valid group element). */
export class RevocationFormatError extends Error {
  override name = 'RevocationFormatError'
}

const MODBYTES = 32
/** Byte sizes of anoncreds-clsignatures-rs `to_bytes`. */
export const G1_BYTES = 4 * MODBYTES
export const G2_BYTES = 4 * MODBYTES
export const GT_BYTES = 16 * MODBYTES
export const SCALAR_BYTES = MODBYTES

/** 2^-280 mod p: AMCL's 64-bit BN254 stores field elements in Montgomery form with R = 2^280. */
const MONTGOMERY_INVERSE = Fp.inv(Fp.create(1n << 280n))
const HEX = /^[0-9a-fA-F]{1,64}$/
const EXCESS = /^[1-9][0-9]{0,9}$/

/** Field elements of an AMCL string, checked as anoncreds-clsignatures-rs `pre_validate_point`. */
function fieldElements(text: unknown, count: number, what: string): bigint[] {
  if (typeof text !== 'string') throw new RevocationFormatError(`${what}: expected a string`)
  const parts = text.split(/\s+/).filter((part) => part.length > 0)
  if (parts.length !== 2 * count) throw new RevocationFormatError(`${what}: expected ${count} field elements`)
  const out: bigint[] = []
  for (let i = 0; i < count; i++) {
    const excess = parts[2 * i]!
    const hex = parts[2 * i + 1]!
    if (!EXCESS.test(excess) || !HEX.test(hex)) throw new RevocationFormatError(`${what}: invalid field element`)
    out.push(Fp.mul(Fp.create(BigInt(`0x${hex}`)), MONTGOMERY_INVERSE))
  }
  return out
}

function g1FromAffine(x: bigint, y: bigint, what: string): G1Point {
  try {
    const point = G1.fromAffine({ x, y })
    point.assertValidity()
    return point
  } catch {
    throw new RevocationFormatError(`${what}: not a point of G1`)
  }
}

function g2FromAffine(x: Fp2Element, y: Fp2Element, what: string): G2Point {
  try {
    const point = G2.fromAffine({ x, y })
    point.assertValidity()
    return point
  } catch {
    throw new RevocationFormatError(`${what}: not a point of G2`)
  }
}

/**
 * A G1 point from its AMCL string (`PointG1::from_string`); infinity is refused.
 * @throws RevocationFormatError when malformed, at infinity or off the curve.
 */
export function g1FromString(text: unknown, what = 'G1 point'): G1Point {
  const [x, y, z] = fieldElements(text, 3, what) as [bigint, bigint, bigint]
  if (Fp.is0(z)) throw new RevocationFormatError(`${what}: point at infinity`)
  const zInv = Fp.inv(z)
  return g1FromAffine(Fp.mul(x, zInv), Fp.mul(y, zInv), what)
}

/**
 * A G2 point from its AMCL string (`PointG2::from_string`); infinity is refused. Stricter than
 * AMCL: the point must also lie in the order-r subgroup.
 * @throws RevocationFormatError when malformed, at infinity, off the curve or the subgroup.
 */
export function g2FromString(text: unknown, what = 'G2 point'): G2Point {
  const v = fieldElements(text, 6, what)
  const x: Fp2Element = { c0: v[0]!, c1: v[1]! }
  const y: Fp2Element = { c0: v[2]!, c1: v[3]! }
  const z: Fp2Element = { c0: v[4]!, c1: v[5]! }
  if (Fp2.is0(z)) throw new RevocationFormatError(`${what}: point at infinity`)
  const zInv = Fp2.inv(z)
  return g2FromAffine(Fp2.mul(x, zInv), Fp2.mul(y, zInv), what)
}

/**
 * AMCL's 12 FP12 coefficients (a.a.a, a.a.b, a.b.a, …, c.b.b for a + b·t + c·t², each FP4 being
 * a + b·s, each FP2 a + b·i) as noble's Fp12 (t = w, s = w³ = v·w).
 */
function gtFromAmcl(k: readonly bigint[]): Fp12Element {
  const f2 = (i: number): Fp2Element => ({ c0: k[i]!, c1: k[i + 1]! })
  // a.a·1, a.b·w³, b.a·w, b.b·w⁴ = v², c.a·w² = v, c.b·w⁵ = v²·w
  return {
    c0: { c0: f2(0), c1: f2(8), c2: f2(6) },
    c1: { c0: f2(4), c1: f2(2), c2: f2(10) },
  }
}

function gtToAmcl(a: Fp12Element): bigint[] {
  const order: Fp2Element[] = [a.c0.c0, a.c1.c1, a.c1.c0, a.c0.c2, a.c0.c1, a.c1.c2]
  return order.flatMap((x) => [x.c0, x.c1])
}

/**
 * A GT element from its AMCL string (`Pair::from_string`). Stricter than AMCL: it must have
 * order r.
 * @throws RevocationFormatError when malformed or not in GT.
 */
export function gtFromString(text: unknown, what = 'GT element'): GtElement {
  const a = gtFromAmcl(fieldElements(text, 12, what))
  if (F12.is0(a) || !F12.eql(F12.pow(a, R), F12.ONE)) throw new RevocationFormatError(`${what}: not an element of GT`)
  return a
}

/**
 * A scalar (`GroupOrderElement`) from its hex string or its 32 bytes, reduced mod r as
 * `GroupOrderElement::from_string` / `from_bytes` do.
 * @throws RevocationFormatError when malformed.
 */
export function scalarFrom(value: unknown, what = 'scalar'): bigint {
  if (typeof value === 'string') {
    if (!HEX.test(value)) throw new RevocationFormatError(`${what}: expected up to 64 hex digits`)
    return BigInt(`0x${value}`) % R
  }
  const bytes = asBytes(value, what)
  if (bytes.length > SCALAR_BYTES) throw new RevocationFormatError(`${what}: more than ${SCALAR_BYTES} bytes`)
  return bytesToNumber(bytes) % R
}

/**
 * A G1 point from its string or its `to_bytes` form (`04 ‖ x ‖ y`, 128 bytes); infinity refused.
 * @throws RevocationFormatError when malformed, at infinity or off the curve.
 */
export function g1From(value: unknown, what = 'G1 point'): G1Point {
  if (typeof value === 'string') return g1FromString(value, what)
  const bytes = asBytes(value, what)
  if (bytes.length !== G1_BYTES || bytes[0] !== 0x04) throw new RevocationFormatError(`${what}: expected 128 bytes starting 04`)
  const x = bytesToNumber(bytes.subarray(1, 33))
  const y = bytesToNumber(bytes.subarray(33, 65))
  if (x >= P || y >= P) throw new RevocationFormatError(`${what}: coordinate not below p`)
  return g1FromAffine(x, y, what)
}

/**
 * A G2 point from its string or its `to_bytes` form (`x.a ‖ x.b ‖ y.a ‖ y.b`); infinity refused.
 * @throws RevocationFormatError when malformed, at infinity, off the curve or the subgroup.
 */
export function g2From(value: unknown, what = 'G2 point'): G2Point {
  if (typeof value === 'string') return g2FromString(value, what)
  const bytes = asBytes(value, what)
  if (bytes.length !== G2_BYTES) throw new RevocationFormatError(`${what}: expected 128 bytes`)
  const v = [0, 1, 2, 3].map((i) => bytesToNumber(bytes.subarray(32 * i, 32 * i + 32)))
  if (v.some((c) => c >= P)) throw new RevocationFormatError(`${what}: coordinate not below p`)
  return g2FromAffine({ c0: v[0]!, c1: v[1]! }, { c0: v[2]!, c1: v[3]! }, what)
}

/** `PointG1::to_bytes`: `04 ‖ x ‖ y` zero-padded to 128 bytes (infinity as x = 0, y = 1). */
export function g1ToBytes(point: G1Point): Uint8Array {
  const out = new Uint8Array(G1_BYTES)
  out[0] = 0x04
  const { x, y } = point.is0() ? { x: 0n, y: 1n } : point.toAffine()
  out.set(numberToBytes(x), 1)
  out.set(numberToBytes(y), 1 + MODBYTES)
  return out
}

/** `PointG2::to_bytes`: `x.a ‖ x.b ‖ y.a ‖ y.b` (infinity as x = 0, y = 1). */
export function g2ToBytes(point: G2Point): Uint8Array {
  const out = new Uint8Array(G2_BYTES)
  const { x, y } = point.is0() ? { x: Fp2.ZERO, y: Fp2.ONE } : point.toAffine()
  const coordinates = [x.c0, x.c1, y.c0, y.c1]
  for (const [i, c] of coordinates.entries()) out.set(numberToBytes(c), MODBYTES * i)
  return out
}

/** `Pair::to_bytes`: the 12 coefficients in AMCL's order, zero-padded to 512 bytes. */
export function gtToBytes(a: GtElement): Uint8Array {
  const out = new Uint8Array(GT_BYTES)
  for (const [i, c] of gtToAmcl(a).entries()) out.set(numberToBytes(c), MODBYTES * i)
  return out
}

/** `PointG1::to_string` of an affine point (Z = 1), the form anoncreds-rs writes. */
export function g1ToString(point: G1Point): string {
  if (point.is0()) throw new RevocationFormatError('G1 point at infinity has no string form')
  const { x, y } = point.toAffine()
  return [x, y, 1n].map(montgomeryHex).join(' ')
}

/** `PointG2::to_string` of an affine point (Z = 1). */
export function g2ToString(point: G2Point): string {
  if (point.is0()) throw new RevocationFormatError('G2 point at infinity has no string form')
  const { x, y } = point.toAffine()
  return [x.c0, x.c1, y.c0, y.c1, 1n, 0n].map(montgomeryHex).join(' ')
}

/** `Pair::to_string`. */
export function gtToString(a: GtElement): string {
  return gtToAmcl(a).map(montgomeryHex).join(' ')
}

function montgomeryHex(value: bigint): string {
  return `1 ${Fp.mul(value, Fp.create(1n << 280n))
    .toString(16)
    .toUpperCase()
    .padStart(64, '0')}`
}

function asBytes(value: unknown, what: string): Uint8Array {
  if (value instanceof Uint8Array) return value
  if (Array.isArray(value) && value.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return Uint8Array.from(value as number[])
  throw new RevocationFormatError(`${what}: expected a string or bytes`)
}

function bytesToNumber(bytes: Uint8Array): bigint {
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  return n
}

function numberToBytes(n: bigint): Uint8Array {
  const out = new Uint8Array(MODBYTES)
  for (let i = MODBYTES - 1; i >= 0; i--, n >>= 8n) out[i] = Number(n & 0xffn)
  return out
}
