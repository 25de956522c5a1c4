/**
 * Golden checks against the anoncreds-rs presentation in the test vectors
 * (`w3c-presentation-anoncreds.json`: one credential, name + height revealed, age >= 18, with a
 * non-revocation sub-proof).
 *
 * Here: the structure and c_list layout (which fixes the order of the hash input), the revealed
 * encoded values, the response sizes (which fix the blinding sizes), and that our tau
 * reconstruction runs on it; without the revocation inputs `verifyProof` refuses the proof.
 * The whole proof, challenge included (c_hash = SHA-256(τ_nonrev ‖ τ_primary ‖ c_list ‖ nonce)),
 * is verified with the registry's keys and accumulator in revocation-verify.test.ts.
 */
import { describe, expect, it } from 'vitest'
import {
  equalityTau,
  parseSubProof,
  predicateTaus,
  primaryKey,
  verifyProof,
  type CredentialPrimaryPublicKey,
  type SubProof,
} from '../../src/anoncreds/proof/index.ts'
import { fromBytes, toJson, unpack, vector, type Msgpack } from './support/vectors.ts'

const primary: CredentialPrimaryPublicKey = vector('anoncreds-credential-definition.json').credentialDefinition.value.primary
const credential = vector('anoncreds-legacy-credential.json')
const linkSecret = BigInt(vector('anoncreds-link-secret.json').linkSecret)
const presentation = vector('w3c-presentation-anoncreds.json')

const [, aggregatedWrapper] = unpack(presentation.proof.proofValue)
const aggregated = aggregatedWrapper.aggregated as { c_hash: number[]; c_list: number[][] }
const [, credentialProof] = unpack(presentation.verifiableCredential[0].proof.proofValue)
const subProofMsgpack = credentialProof.sub_proof as { primary_proof: Msgpack; non_revoc_proof: Record<string, Record<string, number[]>> }
const primaryProof = toJson(subProofMsgpack.primary_proof) as SubProof['primary_proof']
const c = fromBytes(aggregated.c_hash)
const key = primaryKey(primary)
const parsed = parseSubProof({ primary_proof: primaryProof, non_revoc_proof: subProofMsgpack.non_revoc_proof }, 'vector')
const values: Record<string, bigint> = {
  ...Object.fromEntries(Object.entries(credential.values as Record<string, { encoded: string }>).map(([k, v]) => [k, BigInt(v.encoded)])),
  master_secret: linkSecret,
}

describe('golden: the anoncreds-rs vector presentation', () => {
  it('has the c_list layout: 7 non-revocation points, then Â, then T_0…T_3, T_Δ', () => {
    const cList = aggregated.c_list
    expect(cList).toHaveLength(13)
    const nonRevoc = subProofMsgpack.non_revoc_proof.c_list!
    expect(['e', 'd', 'a', 'g', 'w', 's', 'u'].map((k) => nonRevoc[k])).toEqual(cList.slice(0, 7))
    expect(cList.slice(0, 7).every((point) => point.length === 128)).toBe(true)
    const committed = [parsed.eq.aPrime, ...parsed.ge[0]!.t]
    expect(cList.slice(7).map(fromBytes)).toEqual(committed)
    expect(parsed.hasNonRevocation).toBe(true)
  })

  it('reveals the encoded name and height and proves age GE 18', () => {
    expect(primaryProof.eq_proof.revealed_attrs).toEqual({ name: values.name!.toString(), height: '175' })
    expect(Object.keys(primaryProof.eq_proof.m).sort()).toEqual(['age', 'id', 'master_secret', 'sex'])
    expect(primaryProof.ge_proofs).toHaveLength(1)
    expect(primaryProof.ge_proofs[0]!.predicate).toEqual({ attr_name: 'age', p_type: 'GE', value: 18 })
    expect(parsed.ge[0]!.mj).toBe(parsed.eq.m.get('age'))
  })

  it('responses have the sizes anoncreds-rs blinding sizes give (ẽ 456, m̃ 592, m̃2 2432, ṽ 3060, r 2128 + c 256, α̃ 2787)', () => {
    // ê = ẽ + c·e' with e' < 2^119: ẽ dominates; m̂ = m̃ + c·m (m < 2^256): m̃ dominates; r̂ = r̃ + c·r: c·r dominates
    const bits = (x: bigint) => x.toString(2).length
    const near = (x: bigint, expected: number) => bits(x) <= expected + 1 && bits(x) >= expected - 12
    expect(near(parsed.eq.e, 456)).toBe(true)
    for (const name of ['sex', 'age', 'id', 'master_secret']) expect(near(parsed.eq.m.get(name)!, 592), name).toBe(true)
    expect(near(parsed.eq.m2, 2432)).toBe(true)
    expect(near(parsed.eq.v, 3060)).toBe(true)
    const ge = parsed.ge[0]!
    for (const u of ge.u) expect(near(u, 592)).toBe(true)
    for (const r of ge.r) expect(near(r, 2128 + 256)).toBe(true)
    expect(near(ge.alpha, 2787)).toBe(true)
    // the same holds for our proofs' responses (checked against our constants, not a vector)
    expect(bits(c)).toBeLessThanOrEqual(256)
  })

  it('our verifier reconstructs its primary taus (values not checkable without the non-revocation taus)', () => {
    const hidden = [...key.r.keys()].filter((name) => !parsed.eq.revealed.has(name))
    const tEq = equalityTau(key, parsed.eq, c, hidden)
    const taus = predicateTaus(key, parsed.ge[0]!, c)
    expect(tEq).toBeDefined()
    expect(taus).toHaveLength(6)
    for (const t of [tEq!, ...taus!]) expect(t > 1n && t < key.n).toBe(true)
  })

  it('verifyProof refuses it: non-revocation proofs are not supported yet', () => {
    const proof = {
      proofs: [{ primary_proof: primaryProof, non_revoc_proof: toJson(subProofMsgpack.non_revoc_proof as Msgpack) }],
      aggregated_proof: { c_hash: c.toString(), c_list: aggregated.c_list },
    }
    expect(() =>
      verifyProof({
        proof,
        nonce: presentation.proof.challenge,
        subProofs: [
          {
            primary,
            revealed: { name: values.name!.toString(), height: '175' },
            predicates: [{ attr_name: 'age', p_type: 'GE', value: 18 }],
          },
        ],
      }),
    ).toThrow(/non-revocation/)
  })
})
