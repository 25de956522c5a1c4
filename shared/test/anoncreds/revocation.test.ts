/**
 * AMCL BN254 curve, pairing and encodings (`src/anoncreds/revocation/`): algebraic properties of
 * the pairing, and the registry's public z = e(g·γ^(L+1), g′) recomputed from the vector's private
 * γ, which fixes the pairing, the final exponentiation, the Fp12 tower mapping and the AMCL
 * string form of GT at once.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  fields,
  G1,
  G2,
  g1From,
  g1FromString,
  g1ToBytes,
  g1ToString,
  g2From,
  g2FromString,
  g2ToBytes,
  g2ToString,
  gtFromString,
  gtToBytes,
  gtToString,
  pair,
  pair2,
  R,
  RevocationFormatError,
  scalarFrom,
} from '../../src/anoncreds/revocation/index.ts'
import { VECTORS_DIR } from './support/vectors.ts'

const vector = (name: string) => JSON.parse(readFileSync(`${VECTORS_DIR}/${name}`, 'utf8'))
const revocationKey = vector('anoncreds-credential-definition.json').credentialDefinition.value.revocation
const registry = vector('anoncreds-revocation-registry-definition.json')
const statusList = vector('anoncreds-revocation-status-list.json')
const Fp12 = fields.Fp12

describe('AMCL BN254 pairing', () => {
  it('is non-degenerate, of order r and bilinear', () => {
    const e = pair(G1.BASE, G2.BASE)
    expect(Fp12.eql(e, Fp12.ONE)).toBe(false)
    expect(Fp12.eql(Fp12.pow(e, R), Fp12.ONE)).toBe(true)
    const a = 0x1234567890abcdefn
    const b = R - 987654321n
    expect(Fp12.eql(pair(G1.BASE.multiply(a), G2.BASE.multiply(b)), Fp12.pow(e, (a * b) % R))).toBe(true)
    expect(Fp12.eql(pair2(G1.BASE.multiply(a), G2.BASE, G1.BASE.negate(), G2.BASE.multiply(a)), Fp12.ONE)).toBe(true)
  })

  it("recomputes the registry's z = e(g·γ^(L+1), g′) exactly (vector, L = maxCredNum = 10)", () => {
    const gamma = scalarFrom(registry.revocationRegistryDefinitionPrivate.value.gamma)
    const L = BigInt(registry.revocationRegistryDefinition.value.maxCredNum)
    let power = 1n
    for (let i = 0n; i <= L; i++) power = (power * gamma) % R
    const z = pair(g1FromString(revocationKey.g).multiply(power), g2FromString(revocationKey.g_dash))
    const expected: string = registry.revocationRegistryDefinition.value.publicKeys.accumKey.z
    expect(gtToString(z)).toBe(expected)
    expect(Fp12.eql(gtFromString(expected), z)).toBe(true)
    expect(gtToBytes(z)).toHaveLength(512)
    expect(
      gtToBytes(z)
        .subarray(384)
        .every((b) => b === 0),
    ).toBe(true)
  })
})

describe('AMCL encodings', () => {
  it('parses the projective strings of the vector and round-trips points through strings and bytes', () => {
    for (const name of ['g', 'h', 'h0', 'h1', 'h2', 'htilde', 'pk']) {
      const point = g1FromString(revocationKey[name])
      expect(g1FromString(g1ToString(point)).equals(point)).toBe(true)
      const bytes = g1ToBytes(point)
      expect(bytes).toHaveLength(128)
      expect(bytes[0]).toBe(4)
      expect(g1From(bytes).equals(point)).toBe(true)
    }
    for (const text of [revocationKey.g_dash, revocationKey.h_cap, revocationKey.u, revocationKey.y, statusList.currentAccumulator]) {
      const point = g2FromString(text)
      expect(g2FromString(g2ToString(point)).equals(point)).toBe(true)
      expect(g2From(g2ToBytes(point)).equals(point)).toBe(true)
    }
  })

  it('refuses malformed strings, points off the curve and infinity', () => {
    expect(() => g1FromString('1 00 1 01')).toThrow(RevocationFormatError)
    expect(() => g1FromString('0 00 1 01 1 01')).toThrow(RevocationFormatError)
    expect(() => g1FromString('1 0G 1 01 1 01')).toThrow(RevocationFormatError)
    expect(() => g1FromString('1 05 1 07 1 00')).toThrow(/infinity/)
    const [x, y, z] = revocationKey.g.split(' ').filter((_: string, i: number) => i % 2 === 1)
    expect(() => g1FromString(`1 ${x} 1 ${y.replace(/.$/, (d: string) => (d === '0' ? '1' : '0'))} 1 ${z}`)).toThrow(/not a point/)
    const bad = g2ToBytes(g2FromString(revocationKey.u))
    bad[5] = bad[5]! ^ 1
    expect(() => g2From(bad)).toThrow(RevocationFormatError)
    expect(() => scalarFrom('xyz')).toThrow(RevocationFormatError)
    expect(() => gtFromString(revocationKey.g)).toThrow(RevocationFormatError)
  })

  it('refuses a point of the twist outside the order-r subgroup (stricter than AMCL)', () => {
    const { Fp2 } = fields
    const b = { c0: 1n, c1: fields.Fp.neg(1n) } // 2/ξ = 1 − i
    let x = { c0: 5n, c1: 1n }
    let y: typeof x | undefined
    for (;;) {
      const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), b)
      try {
        y = Fp2.sqrt(rhs)
        if (Fp2.eql(Fp2.sqr(y), rhs)) break
      } catch {
        // not a square: next x
      }
      x = Fp2.add(x, Fp2.ONE)
    }
    const bytes = new Uint8Array(128)
    const coordinates = [x.c0, x.c1, y.c0, y.c1]
    for (const [i, c] of coordinates.entries()) bytes.set(Buffer.from(c.toString(16).padStart(64, '0'), 'hex'), 32 * i)
    expect(() => g2From(bytes)).toThrow(/not a point of G2/)
  })
})
