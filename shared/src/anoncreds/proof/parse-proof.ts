/**
 * Reading a CL proof's JSON (anoncreds-rs `presentation.proof`) into bigints. Structure only:
 * whether the values verify is `verify.ts`'s concern.
 */
import { DELTA_KEY, SQUARE_KEYS } from './constants.ts'
import { parseBig, parseBigRecord, parseByteArray, ProofFormatError } from './parse.ts'
import { checkPredicate } from './predicate.ts'
import type { Predicate } from './types.ts'

/** `eq_proof` as bigints. */
export interface ParsedEqualProof {
  revealed: Map<string, bigint>
  aPrime: bigint
  e: bigint
  v: bigint
  m: Map<string, bigint>
  m2: bigint
}

/** One `ge_proofs` entry as bigints; `r` and `t` hold the four squares' values then Δ's. */
export interface ParsedPredicateProof {
  u: bigint[]
  r: bigint[]
  t: bigint[]
  mj: bigint
  alpha: bigint
  predicate: Predicate
}

/** One sub-proof as bigints. */
export interface ParsedSubProof {
  eq: ParsedEqualProof
  ge: ParsedPredicateProof[]
  hasNonRevocation: boolean
}

/** A whole proof as bigints, `c_list` kept as the byte strings that are hashed. */
export interface ParsedProof {
  proofs: ParsedSubProof[]
  cHash: bigint
  cList: Uint8Array[]
}

/**
 * The proof's values as bigints.
 * @throws ProofFormatError when a member is missing or of the wrong type.
 */
export function parseProof(json: unknown): ParsedProof {
  const proof = asObject(json, 'proof')
  if (!Array.isArray(proof.proofs)) throw new ProofFormatError('proof.proofs: expected an array')
  const aggregated = asObject(proof.aggregated_proof, 'proof.aggregated_proof')
  if (!Array.isArray(aggregated.c_list)) throw new ProofFormatError('proof.aggregated_proof.c_list: expected an array')
  return {
    proofs: proof.proofs.map((sub, i) => parseSubProof(sub, `proof.proofs[${i}]`)),
    cHash: parseBig(aggregated.c_hash, 'proof.aggregated_proof.c_hash'),
    cList: aggregated.c_list.map((c, i) => parseByteArray(c, `proof.aggregated_proof.c_list[${i}]`)),
  }
}

/**
 * One sub-proof (`{ primary_proof, non_revoc_proof }`) as bigints.
 * @throws ProofFormatError when a member is missing or of the wrong type.
 */
export function parseSubProof(json: unknown, what: string): ParsedSubProof {
  const sub = asObject(json, what)
  const primary = asObject(sub.primary_proof, `${what}.primary_proof`)
  const eq = asObject(primary.eq_proof, `${what}.primary_proof.eq_proof`)
  const w = `${what}.primary_proof.eq_proof`
  const geList = primary.ge_proofs ?? []
  if (!Array.isArray(geList)) throw new ProofFormatError(`${what}.primary_proof.ge_proofs: expected an array`)
  return {
    eq: {
      revealed: parseBigRecord(eq.revealed_attrs, `${w}.revealed_attrs`),
      aPrime: parseBig(eq.a_prime, `${w}.a_prime`),
      e: parseBig(eq.e, `${w}.e`),
      v: parseBig(eq.v, `${w}.v`),
      m: parseBigRecord(eq.m, `${w}.m`),
      m2: parseBig(eq.m2, `${w}.m2`),
    },
    ge: geList.map((ge, i) => parsePredicateProof(ge, `${what}.primary_proof.ge_proofs[${i}]`)),
    hasNonRevocation: sub.non_revoc_proof !== undefined && sub.non_revoc_proof !== null,
  }
}

function parsePredicateProof(json: unknown, what: string): ParsedPredicateProof {
  const ge = asObject(json, what)
  const u = parseBigRecord(ge.u, `${what}.u`)
  const r = parseBigRecord(ge.r, `${what}.r`)
  const t = parseBigRecord(ge.t, `${what}.t`)
  const pick = (map: Map<string, bigint>, key: string, name: string) => {
    const value = map.get(key)
    if (value === undefined) throw new ProofFormatError(`${what}.${name}: missing '${key}'`)
    return value
  }
  const withDelta = [...SQUARE_KEYS, DELTA_KEY]
  return {
    u: SQUARE_KEYS.map((k) => pick(u, k, 'u')),
    r: withDelta.map((k) => pick(r, k, 'r')),
    t: withDelta.map((k) => pick(t, k, 't')),
    mj: parseBig(ge.mj, `${what}.mj`),
    alpha: parseBig(ge.alpha, `${what}.alpha`),
    predicate: checkPredicate(ge.predicate, `${what}.predicate`),
  }
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProofFormatError(`${what}: expected an object`)
  return value as Record<string, unknown>
}
