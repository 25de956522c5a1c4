/**
 * `verifyProof` on the anoncreds-rs vector presentation with its non-revocation sub-proof
 * (equality + age >= 18 + non-revocation against the status list's accumulator), in both forms a
 * `non_revoc_proof` comes in: msgpack bytes (W3C proofValue) and anoncreds-rs JSON strings.
 */
import { describe, expect, it } from 'vitest'
import { gmpArithmetic, type NativeArithmetic, opensslPower } from '../../src/anoncreds/math/index.ts'
import { ProofFormatError, useNativeArithmetic, verifyProof, type VerifyProofInput } from '../../src/anoncreds/proof/index.ts'
import type { VerifierRevocation } from '../../src/anoncreds/proof/verify.ts'
import {
  fields,
  g1From,
  g1ToBytes,
  g1ToString,
  g2From,
  g2ToString,
  gtFromString,
  gtToString,
  scalarFrom,
} from '../../src/anoncreds/revocation/index.ts'
import { fromBytes, toJson, unpack, vector, type SubProofMsgpack } from './support/vectors.ts'

const credentialDefinition = vector('anoncreds-credential-definition.json').credentialDefinition.value
const registryDefinition = vector('anoncreds-revocation-registry-definition.json').revocationRegistryDefinition.value
const statusList = vector('anoncreds-revocation-status-list.json')
const request = vector('anoncreds-presentation-request.json')
const presentation = vector('w3c-presentation-anoncreds.json')
const credential = vector('anoncreds-legacy-credential.json')

const [, aggregatedWrapper] = unpack(presentation.proof.proofValue)
const aggregated = aggregatedWrapper.aggregated as { c_hash: Uint8Array; c_list: Uint8Array[] }
const [, credentialProof] = unpack(presentation.verifiableCredential[0].proof.proofValue)
const subProof = credentialProof.sub_proof as SubProofMsgpack
const primaryProof = toJson(subProof.primary_proof)
type NonRevoc = { x_list: Record<string, unknown>; c_list: Record<string, unknown> }
const nonRevocBytes = subProof.non_revoc_proof as NonRevoc
/** The anoncreds-rs JSON form: scalars as hex, points as AMCL strings. */
const nonRevocJson: NonRevoc = {
  x_list: Object.fromEntries(
    Object.entries(nonRevocBytes.x_list).map(([k, v]) => [k, scalarFrom(v).toString(16).toUpperCase().padStart(64, '0')]),
  ),
  c_list: Object.fromEntries(
    Object.entries(nonRevocBytes.c_list).map(([k, v]) => [k, ['w', 's', 'u'].includes(k) ? g2ToString(g2From(v)) : g1ToString(g1From(v))]),
  ),
}
const revocation: VerifierRevocation = {
  publicKey: credentialDefinition.revocation,
  registryPublicKey: registryDefinition.publicKeys.accumKey,
  accumulator: statusList.currentAccumulator,
}
const values = credential.values as Record<string, { encoded: string }>

function input(
  nonRevoc: unknown,
  options: { revocation?: VerifierRevocation | undefined; cList?: unknown[]; nonce?: string } = {},
): VerifyProofInput {
  return {
    proof: {
      proofs: [{ primary_proof: primaryProof, non_revoc_proof: nonRevoc }],
      aggregated_proof: { c_hash: fromBytes(aggregated.c_hash).toString(), c_list: options.cList ?? aggregated.c_list.map((c) => [...c]) },
    },
    nonce: options.nonce ?? request.nonce,
    subProofs: [
      {
        primary: credentialDefinition.primary,
        revealed: { name: values.name!.encoded, height: values.height!.encoded },
        predicates: [{ attr_name: 'age', p_type: 'GE', value: 18 }],
        ...('revocation' in options ? (options.revocation === undefined ? {} : { revocation: options.revocation }) : { revocation }),
      },
    ],
  }
}

describe('verifyProof with a non-revocation sub-proof (anoncreds-rs vector)', () => {
  it('accepts the vector presentation, non_revoc_proof as msgpack bytes', () => {
    expect(verifyProof(input(nonRevocBytes))).toBe(true)
  })

  // costs 0: the products take the native exponentiation wherever it applies (Â's and every T's powers)
  const gmp = gmpArithmetic()
  const arithmetics: Array<[string, NativeArithmetic | undefined]> = [
    ["OpenSSL's exponentiation", { power: { ...opensslPower()!, costPerBit: 0, costPerCall: 0 } }],
    ["GMP's multiplication and exponentiation", gmp && { ...gmp, power: { ...gmp.power!, costPerBit: 0, costPerCall: 0 } }],
  ]
  it.each(arithmetics)('accepts it, and refuses a tampered one, on %s for every native factor', (_, arithmetic) => {
    expect(arithmetic, 'the GMP addon is built (npm run build:native)').toBeDefined()
    useNativeArithmetic(arithmetic)
    try {
      expect(verifyProof(input(nonRevocBytes))).toBe(true)
      const tampered = structuredClone(input(nonRevocBytes))
      const eq = (tampered.proof as { proofs: Array<{ primary_proof: { eq_proof: { e: string } } }> }).proofs[0]!.primary_proof.eq_proof
      eq.e = (BigInt(eq.e) + 1n).toString()
      expect(verifyProof(tampered)).toBe(false)
    } finally {
      useNativeArithmetic(undefined)
    }
  })

  it('accepts it with non_revoc_proof in the anoncreds-rs JSON form (hex scalars, AMCL strings)', () => {
    expect(verifyProof(input(nonRevocJson))).toBe(true)
  })

  it('rejects it when one x_list response is tampered', () => {
    for (const name of ['rho', 'r_prime_prime', 'm_prime', 'c']) {
      const value = scalarFrom(nonRevocJson.x_list[name])
      const tampered = (value + 1n).toString(16).padStart(64, '0')
      expect(verifyProof(input({ ...nonRevocJson, x_list: { ...nonRevocJson.x_list, [name]: tampered } })), name).toBe(false)
    }
  })

  it('rejects it when a c_list point is replaced, in the sub-proof alone or in the aggregated c_list too', () => {
    const e = g1From(nonRevocBytes.c_list.e)
    const other = e.add(g1From(credentialDefinition.revocation.g))
    const nonRevoc = { ...nonRevocJson, c_list: { ...nonRevocJson.c_list, e: g1ToString(other) } }
    expect(verifyProof(input(nonRevoc))).toBe(false)
    const cList = aggregated.c_list.map((c) => [...c])
    cList[0] = [...g1ToBytes(other)]
    expect(verifyProof(input(nonRevoc, { cList }))).toBe(false)
  })

  it('rejects it against another accumulator, another registry key or another nonce', () => {
    expect(verifyProof(input(nonRevocJson, { revocation: { ...revocation, accumulator: credentialDefinition.revocation.u } }))).toBe(false)
    const otherZ = gtToString(fields.Fp12.sqr(gtFromString(registryDefinition.publicKeys.accumKey.z)))
    expect(verifyProof(input(nonRevocJson, { revocation: { ...revocation, registryPublicKey: { z: otherZ } } }))).toBe(false)
    expect(verifyProof(input(nonRevocJson, { nonce: '726216211516745824455643' }))).toBe(false)
  })

  it('needs the revocation inputs for a non-revocation proof, and a non-revocation proof when they are given', () => {
    expect(() => verifyProof(input(nonRevocJson, { revocation: undefined }))).toThrow(/non-revocation/)
    expect(verifyProof(input(null))).toBe(false)
  })

  it('throws ProofFormatError for a malformed non-revocation value', () => {
    const nonRevoc = { ...nonRevocJson, c_list: { ...nonRevocJson.c_list, w: '1 00 1 00' } }
    expect(() => verifyProof(input(nonRevoc))).toThrow(ProofFormatError)
    expect(() => verifyProof(input(nonRevocJson, { revocation: { ...revocation, accumulator: 'x' } }))).toThrow(ProofFormatError)
  })
})
