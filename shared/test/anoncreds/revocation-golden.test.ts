/**
 * Golden check of the non-revocation taus against the anoncreds-rs vector presentation
 * (`w3c-presentation-anoncreds.json`): c_hash = SHA-256(T̂1…T̂8 ‖ primary taus ‖ c_list ‖ nonce)
 * recomputed from our non-revocation taus (revocation key of the credential definition, the
 * registry's accumKey z, the status list's accumulator) and our primary taus must equal the
 * vector's c_hash bit for bit.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { describe, expect, it } from 'vitest'
import { bigIntToBytes, bytesToBigInt } from '../../src/anoncreds/math/index.ts'
import { equalityTau, parseSubProof, predicateTaus, primaryKey } from '../../src/anoncreds/proof/index.ts'
import { nonRevocationTaus } from '../../src/anoncreds/revocation/index.ts'
import { fromBytes, toJson, unpack, vector, type SubProofMsgpack } from './support/vectors.ts'

const credentialDefinition = vector('anoncreds-credential-definition.json').credentialDefinition.value
const registryPublicKey = vector('anoncreds-revocation-registry-definition.json').revocationRegistryDefinition.value.publicKeys.accumKey
const accumulator: string = vector('anoncreds-revocation-status-list.json').currentAccumulator
const presentation = vector('w3c-presentation-anoncreds.json')
const nonce = BigInt(vector('anoncreds-presentation-request.json').nonce)

const [, aggregatedWrapper] = unpack(presentation.proof.proofValue)
const aggregated = aggregatedWrapper.aggregated as { c_hash: Uint8Array; c_list: Uint8Array[] }
const [, credentialProof] = unpack(presentation.verifiableCredential[0].proof.proofValue)
const subProof = credentialProof.sub_proof as SubProofMsgpack
const nonRevocProof = subProof.non_revoc_proof as { x_list: Record<string, Uint8Array>; c_list: Record<string, Uint8Array> }
const parsed = parseSubProof({ primary_proof: toJson(subProof.primary_proof), non_revoc_proof: null }, 'vector')
const cHash = fromBytes(aggregated.c_hash)

function primaryTaus(): bigint[] {
  const key = primaryKey(credentialDefinition.primary)
  const hidden = [...key.r.keys()].filter((name) => !parsed.eq.revealed.has(name))
  return [equalityTau(key, parsed.eq, cHash, hidden)!, ...predicateTaus(key, parsed.ge[0]!, cHash)!]
}

function recomputedChallenge(nonRevocation: Uint8Array[]): bigint {
  const hash = sha256.create()
  for (const tau of nonRevocation) hash.update(tau)
  for (const tau of primaryTaus()) hash.update(bigIntToBytes(tau))
  for (const c of aggregated.c_list) hash.update(Uint8Array.from(c))
  hash.update(bigIntToBytes(nonce))
  return bytesToBigInt(hash.digest())
}

describe('golden: non-revocation taus of the anoncreds-rs vector presentation', () => {
  it('uses the presentation request nonce the W3C proof carries', () => {
    expect(BigInt(presentation.proof.challenge)).toBe(nonce)
  })

  it('recomputes c_hash exactly: T̂1…T̂8 (G1 128 bytes, GT 512 bytes) ‖ primary taus ‖ c_list ‖ nonce', () => {
    const taus = nonRevocationTaus(nonRevocProof, credentialDefinition.revocation, registryPublicKey, accumulator, {
      cHash,
      m2: parsed.eq.m2,
    })
    expect(taus.map((t) => t.length)).toEqual([128, 128, 512, 512, 128, 128, 512, 512])
    expect(recomputedChallenge(taus)).toBe(cHash)
  })

  it('gives a different c_hash when one x_list response is tampered', () => {
    const rho = Uint8Array.from(nonRevocProof.x_list.rho!)
    rho[31] = rho[31]! ^ 1
    const tampered = { ...nonRevocProof, x_list: { ...nonRevocProof.x_list, rho } }
    const taus = nonRevocationTaus(tampered, credentialDefinition.revocation, registryPublicKey, accumulator, { cHash, m2: parsed.eq.m2 })
    expect(recomputedChallenge(taus)).not.toBe(cHash)
  })
})
