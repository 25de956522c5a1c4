import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  createProof,
  PredicateNotSatisfiedError,
  ProofFormatError,
  verifyProof,
  type CredentialPrimaryPublicKey,
  type Predicate,
  type PrimaryCredentialSignature,
  type Proof,
  type VerifierSubProof,
} from '../../src/anoncreds/proof/index.ts'
import { VECTORS_DIR } from './support/vectors.ts'

// Vectors from TimoGlastra/anoncreds-w3c-test-vectors (produced by anoncreds-rs).
const DIR = VECTORS_DIR
const vector = (name: string) => JSON.parse(readFileSync(`${DIR}/${name}`, 'utf8'))
const credDef = vector('anoncreds-credential-definition.json')
const credential = vector('anoncreds-legacy-credential.json')
const primary: CredentialPrimaryPublicKey = credDef.credentialDefinition.value.primary
const linkSecret: string = vector('anoncreds-link-secret.json').linkSecret
const nonce: string = vector('anoncreds-presentation-request.json').nonce
const encodedValues: Record<string, string> = Object.fromEntries(
  Object.entries(credential.values as Record<string, { encoded: string }>).map(([k, v]) => [k, v.encoded]),
)
// The legacy credential vector holds the issuer's signature as sent (v = v''); the holder's
// processing adds v' from the request metadata.
const vPrime = BigInt(vector('anoncreds-credential-request.json').credentialRequestMetadata.link_secret_blinding_data.v_prime)
const pCredential: PrimaryCredentialSignature = {
  ...credential.signature.p_credential,
  v: (BigInt(credential.signature.p_credential.v) + vPrime).toString(),
}

const ageAtLeast18: Predicate = { attr_name: 'age', p_type: 'GE', value: 18 }
const revealedNames = ['name', 'height']
const revealedValues = { name: encodedValues.name!, height: encodedValues.height! }

function prove(predicates: Predicate[], revealed = revealedNames, options: { nonce?: string; linkSecret?: string } = {}): Proof {
  return createProof({
    nonce: options.nonce ?? nonce,
    linkSecret: options.linkSecret ?? linkSecret,
    subProofs: [{ primary, p_credential: pCredential, encodedValues, revealed, predicates }],
  })
}

function verify(
  proof: unknown,
  predicates: Predicate[],
  options: { revealed?: Record<string, string>; nonce?: string; primary?: CredentialPrimaryPublicKey } = {},
): boolean {
  return verifyProof({
    proof,
    nonce: options.nonce ?? nonce,
    subProofs: [{ primary: options.primary ?? primary, revealed: options.revealed ?? revealedValues, predicates }],
  })
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

describe('createProof / verifyProof round trip', () => {
  const proof = prove([ageAtLeast18])

  it('verifies a proof revealing name and height with age >= 18', () => {
    expect(verify(proof, [ageAtLeast18])).toBe(true)
  })

  it('survives a JSON round trip (verifies the serialised form)', () => {
    expect(verify(JSON.parse(JSON.stringify(proof)), [ageAtLeast18])).toBe(true)
  })

  it('writes the anoncreds-rs JSON shapes', () => {
    const sub = proof.proofs[0]!
    expect(Object.keys(sub)).toEqual(['primary_proof', 'non_revoc_proof'])
    expect(sub.non_revoc_proof).toBeNull()
    const eq = sub.primary_proof.eq_proof
    expect(Object.keys(eq)).toEqual(['revealed_attrs', 'a_prime', 'e', 'v', 'm', 'm2'])
    expect(eq.revealed_attrs).toEqual({ height: '175', name: encodedValues.name })
    expect(Object.keys(eq.m).sort()).toEqual(['age', 'id', 'master_secret', 'sex'])
    for (const value of [eq.a_prime, eq.e, eq.v, eq.m2, ...Object.values(eq.m)]) expect(value).toMatch(/^[0-9]+$/)
    const ge = sub.primary_proof.ge_proofs[0]!
    expect(Object.keys(ge)).toEqual(['u', 'r', 'mj', 'alpha', 't', 'predicate'])
    expect(Object.keys(ge.u)).toEqual(['0', '1', '2', '3'])
    expect(Object.keys(ge.r)).toEqual(['0', '1', '2', '3', 'DELTA'])
    expect(Object.keys(ge.t)).toEqual(['0', '1', '2', '3', 'DELTA'])
    expect(ge.predicate).toEqual({ attr_name: 'age', p_type: 'GE', value: 18 })
    expect(ge.mj).toBe(eq.m.age)
    expect(Object.keys(proof.aggregated_proof)).toEqual(['c_hash', 'c_list'])
    expect(proof.aggregated_proof.c_hash).toMatch(/^[0-9]+$/)
    expect(BigInt(proof.aggregated_proof.c_hash) < 1n << 256n).toBe(true)
    // c_list: Â, then T_0…T_3, T_Δ; minimal big-endian bytes
    expect(proof.aggregated_proof.c_list).toHaveLength(6)
    for (const entry of proof.aggregated_proof.c_list) {
      expect(entry.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)).toBe(true)
      expect(entry[0]).not.toBe(0)
    }
    const hex = proof.aggregated_proof.c_list[0]!.map((b) => b.toString(16).padStart(2, '0')).join('')
    expect(BigInt(`0x${hex}`).toString()).toBe(eq.a_prime)
  })

  it('proves and verifies every predicate type, at and away from the boundary', () => {
    const cases: Predicate[] = [
      { attr_name: 'age', p_type: 'GE', value: 28 },
      { attr_name: 'age', p_type: 'GE', value: -5 },
      { attr_name: 'age', p_type: 'GT', value: 27 },
      { attr_name: 'age', p_type: 'GT', value: 0 },
      { attr_name: 'age', p_type: 'LE', value: 28 },
      { attr_name: 'age', p_type: 'LE', value: 65 },
      { attr_name: 'age', p_type: 'LT', value: 29 },
      { attr_name: 'age', p_type: 'LT', value: 2_000_000_000 },
    ]
    for (const predicate of cases) {
      const p = prove([predicate])
      expect(verify(p, [predicate]), JSON.stringify(predicate)).toBe(true)
      // the same responses do not pass for another bound or direction (proof and request edited alike)
      for (const other of [
        { ...predicate, value: predicate.value + 1 },
        { ...predicate, p_type: predicate.p_type === 'GE' ? 'LE' : 'GE' } as Predicate,
      ]) {
        const edited = clone(p)
        edited.proofs[0]!.primary_proof.ge_proofs[0]!.predicate = other
        expect(verify(edited, [other]), JSON.stringify(other)).toBe(false)
      }
    }
  })

  it('proves several predicates in anoncreds-rs order (attr_name, then GE < LE < GT < LT)', () => {
    const predicates: Predicate[] = [
      { attr_name: 'height', p_type: 'LT', value: 200 },
      { attr_name: 'age', p_type: 'LE', value: 30 },
      { attr_name: 'age', p_type: 'GE', value: 18 },
    ]
    const p = prove(predicates, ['name'])
    expect(p.proofs[0]!.primary_proof.ge_proofs.map((g) => `${g.predicate.attr_name} ${g.predicate.p_type}`)).toEqual([
      'age GE',
      'age LE',
      'height LT',
    ])
    expect(p.aggregated_proof.c_list).toHaveLength(1 + 3 * 5)
    // the verifier compares predicate sets, so the request order does not matter
    expect(verify(p, [...predicates].reverse(), { revealed: { name: encodedValues.name! } })).toBe(true)
  })

  it('proves with nothing revealed and no predicates', () => {
    expect(verify(prove([], []), [], { revealed: {} })).toBe(true)
  })
})

describe('verifyProof rejects', () => {
  const proof = prove([ageAtLeast18])

  it('tampered response values', () => {
    const tamper = (edit: (p: Proof) => void) => {
      const p = clone(proof)
      edit(p)
      return verify(p, [ageAtLeast18])
    }
    const bump = (s: string) => (BigInt(s) + 1n).toString()
    expect(
      tamper((p) => {
        p.proofs[0]!.primary_proof.eq_proof.e = bump(p.proofs[0]!.primary_proof.eq_proof.e)
      }),
    ).toBe(false)
    expect(
      tamper((p) => {
        p.proofs[0]!.primary_proof.eq_proof.v = bump(p.proofs[0]!.primary_proof.eq_proof.v)
      }),
    ).toBe(false)
    expect(
      tamper((p) => {
        p.proofs[0]!.primary_proof.eq_proof.m2 = bump(p.proofs[0]!.primary_proof.eq_proof.m2)
      }),
    ).toBe(false)
    expect(
      tamper((p) => {
        const m = p.proofs[0]!.primary_proof.eq_proof.m
        m.sex = bump(m.sex!)
      }),
    ).toBe(false)
    expect(
      tamper((p) => {
        const ge = p.proofs[0]!.primary_proof.ge_proofs[0]!
        ge.u['2'] = bump(ge.u['2']!)
      }),
    ).toBe(false)
    expect(
      tamper((p) => {
        const ge = p.proofs[0]!.primary_proof.ge_proofs[0]!
        ge.r.DELTA = bump(ge.r.DELTA!)
      }),
    ).toBe(false)
    expect(
      tamper((p) => {
        const ge = p.proofs[0]!.primary_proof.ge_proofs[0]!
        ge.alpha = bump(ge.alpha)
      }),
    ).toBe(false)
    expect(
      tamper((p) => {
        p.aggregated_proof.c_hash = bump(p.aggregated_proof.c_hash)
      }),
    ).toBe(false)
    expect(
      tamper((p) => {
        const c = p.aggregated_proof.c_list[3]!
        c[5] = c[5]! ^ 1
      }),
    ).toBe(false)
    expect(
      tamper((p) => {
        p.proofs[0]!.primary_proof.eq_proof.v = (1n << 5000n).toString()
      }),
    ).toBe(false)
  })

  it('a tampered Â even with a matching c_list entry', () => {
    const p = clone(proof)
    const eq = p.proofs[0]!.primary_proof.eq_proof
    eq.a_prime = ((BigInt(eq.a_prime) * 4n) % BigInt(primary.n)).toString()
    const hex = BigInt(eq.a_prime).toString(16)
    p.aggregated_proof.c_list[0] = (hex.length % 2 ? `0${hex}` : hex).match(/../g)!.map((b) => parseInt(b, 16))
    expect(verify(p, [ageAtLeast18])).toBe(false)
  })

  it('a changed revealed value, in the proof or in the expectation', () => {
    const p = clone(proof)
    p.proofs[0]!.primary_proof.eq_proof.revealed_attrs.height = '176'
    expect(verify(p, [ageAtLeast18], { revealed: { ...revealedValues, height: '176' } })).toBe(false)
    expect(verify(proof, [ageAtLeast18], { revealed: { ...revealedValues, height: '176' } })).toBe(false)
  })

  it('a different set of revealed attributes or predicates than expected', () => {
    expect(verify(proof, [ageAtLeast18], { revealed: { name: encodedValues.name! } })).toBe(false)
    expect(verify(proof, [ageAtLeast18], { revealed: { ...revealedValues, sex: encodedValues.sex! } })).toBe(false)
    expect(verify(proof, [])).toBe(false)
    expect(verify(proof, [ageAtLeast18, { attr_name: 'age', p_type: 'LE', value: 99 }])).toBe(false)
  })

  it('a wrong nonce', () => {
    expect(verify(proof, [ageAtLeast18], { nonce: (BigInt(nonce) + 1n).toString() })).toBe(false)
    expect(verify(prove([ageAtLeast18], revealedNames, { nonce: '1234567890' }), [ageAtLeast18])).toBe(false)
  })

  it('another credential definition (another primary key)', () => {
    const n = BigInt(primary.n)
    const otherZ = { ...primary, z: ((BigInt(primary.z) * BigInt(primary.s)) % n).toString() }
    const swappedR = { ...primary, r: { ...primary.r, sex: primary.r.id!, id: primary.r.sex! } }
    expect(verify(proof, [ageAtLeast18], { primary: otherZ })).toBe(false)
    expect(verify(proof, [ageAtLeast18], { primary: swappedR })).toBe(false)
  })

  it('a proof made with a link secret the credential was not issued to', () => {
    const wrong = prove([ageAtLeast18], revealedNames, { linkSecret: (BigInt(linkSecret) + 1n).toString() })
    expect(verify(wrong, [ageAtLeast18])).toBe(false)
  })

  it('malformed input by throwing ProofFormatError', () => {
    expect(() => verify({ proofs: [] }, [])).toThrow(ProofFormatError)
    const p = clone(proof) as unknown as { proofs: Array<{ primary_proof: { eq_proof: { e: unknown } } }> }
    p.proofs[0]!.primary_proof.eq_proof.e = '12ab'
    expect(() => verify(p, [ageAtLeast18])).toThrow(ProofFormatError)
    const q = clone(proof)
    delete (q.proofs[0]!.primary_proof.ge_proofs[0]!.t as Record<string, string>).DELTA
    expect(() => verify(q, [ageAtLeast18])).toThrow(ProofFormatError)
    expect(() => verify(proof, [{ attr_name: 'age', p_type: '>=' as never, value: 18 }])).toThrow(ProofFormatError)
    expect(() => verifyProof({ proof, nonce: 'abc', subProofs: [] })).toThrow(ProofFormatError)
  })
})

describe('createProof refuses', () => {
  it('a predicate that does not hold', () => {
    for (const predicate of [
      { attr_name: 'age', p_type: 'GE', value: 29 },
      { attr_name: 'age', p_type: 'GT', value: 28 },
      { attr_name: 'age', p_type: 'LE', value: 27 },
      { attr_name: 'age', p_type: 'LT', value: 28 },
    ] as Predicate[]) {
      expect(() => prove([predicate]), JSON.stringify(predicate)).toThrow(PredicateNotSatisfiedError)
    }
  })

  it('inconsistent requests', () => {
    expect(() => prove([], ['master_secret'])).toThrow(ProofFormatError)
    expect(() => prove([], ['nickname'])).toThrow(ProofFormatError)
    expect(() => prove([{ attr_name: 'age', p_type: 'GE', value: 1 }], ['age'])).toThrow(ProofFormatError)
    expect(() => prove([{ attr_name: 'sex', p_type: 'GE', value: 1 }])).toThrow(ProofFormatError) // not a 32-bit integer
    expect(() =>
      createProof({
        nonce,
        linkSecret,
        subProofs: [{ primary, p_credential: pCredential, encodedValues: { name: '1' }, revealed: [], predicates: [] }],
      }),
    ).toThrow(ProofFormatError)
  })
})

describe('several credentials in one proof', () => {
  const sub = (revealed: string[], predicates: Predicate[]) => ({ primary, p_credential: pCredential, encodedValues, revealed, predicates })
  const proof = createProof({ nonce, linkSecret, subProofs: [sub(['name'], [ageAtLeast18]), sub(['sex'], [])] })
  const expected: VerifierSubProof[] = [
    { primary, revealed: { name: encodedValues.name! }, predicates: [ageAtLeast18] },
    { primary, revealed: { sex: encodedValues.sex! }, predicates: [] },
  ]

  it('share the link secret: one m̂ for master_secret, other m̂ differ', () => {
    const [a, b] = proof.proofs.map((p) => p.primary_proof.eq_proof.m)
    expect(a!.master_secret).toBe(b!.master_secret)
    expect(a!.id).not.toBe(b!.id)
    expect(proof.aggregated_proof.c_list).toHaveLength(6 + 1)
  })

  it('verify together, in order', () => {
    expect(verifyProof({ proof, nonce, subProofs: expected })).toBe(true)
    expect(verifyProof({ proof, nonce, subProofs: [...expected].reverse() })).toBe(false)
    expect(verifyProof({ proof, nonce, subProofs: expected.slice(0, 1) })).toBe(false)
  })

  it('fail when the link secret responses differ', () => {
    const p = clone(proof)
    const m = p.proofs[1]!.primary_proof.eq_proof.m
    m.master_secret = (BigInt(m.master_secret!) + 1n).toString()
    expect(verifyProof({ proof: p, nonce, subProofs: expected })).toBe(false)
  })

  it('fail when two single-credential proofs are spliced together', () => {
    const one = prove([ageAtLeast18], ['name'])
    const two = prove([], ['sex'])
    const spliced = {
      proofs: [one.proofs[0], two.proofs[0]],
      aggregated_proof: { c_hash: one.aggregated_proof.c_hash, c_list: [...one.aggregated_proof.c_list, ...two.aggregated_proof.c_list] },
    }
    expect(verifyProof({ proof: spliced, nonce, subProofs: expected })).toBe(false)
  })
})
