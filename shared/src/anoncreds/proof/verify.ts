/**
 * Verifying a CL proof (anoncreds-clsignatures-rs `ProofVerifier::verify`; AnonCreds
 * specification, "Verify Presentation"): recompute every tau from the responses and c_hash,
 * hash them with the proof's c_list and the nonce, compare with c_hash. Non-revocation sub-proofs
 * are verified when the caller gives the revocation inputs (`../revocation/`).
 */
import { challengeHash } from './challenge.ts'
import { LINK_SECRET_ATTRIBUTE } from '../encoding/index.ts'
import { primaryKey } from './key.ts'
import { bigIntToBytes, bytesEqual, parseBigRecord, parseNatural, ProofFormatError } from './parse.ts'
import { parseProof, type ParsedSubProof } from './parse-proof.ts'
import { checkPredicate, predicateId } from './predicate.ts'
import { equalityTau, predicateTaus } from './taus.ts'
import type { CredentialPrimaryPublicKey, DecimalString, Predicate } from './types.ts'
import {
  nonRevocationSubProof as revocationTaus,
  RevocationFormatError,
  type CredentialRevocationPublicKey,
  type RevocationRegistryPublicKey,
} from '../revocation/index.ts'

/** What the verifier expects of one sub-proof (same order as the proof's sub-proofs). */
export interface VerifierSubProof {
  primary: CredentialPrimaryPublicKey
  /** Revealed attribute name -> its expected encoded value (decimal). */
  revealed: Record<string, DecimalString>
  predicates: Predicate[]
  /**
   * Give these to verify the sub-proof's `non_revoc_proof` (then it must carry one); leave out
   * for a credential without revocation (then it must not).
   */
  revocation?: VerifierRevocation
}

/** What a verifier needs to check a non-revocation sub-proof against one registry state. */
export interface VerifierRevocation {
  /** The credential definition's `value.revocation`. */
  publicKey: CredentialRevocationPublicKey
  /** The registry definition's `value.publicKeys.accumKey` (`{ z }`). */
  registryPublicKey: RevocationRegistryPublicKey
  /** The status list's `currentAccumulator` (AMCL G2 string) at the time proven against. */
  accumulator: string
}

/** Input of `verifyProof`: the anoncreds-rs `presentation.proof` JSON, the request nonce. */
export interface VerifyProofInput {
  proof: unknown
  nonce: DecimalString | bigint
  subProofs: VerifierSubProof[]
}

/**
 * Whether `proof` proves, for each expected sub-proof in order, knowledge of a CL signature under
 * `primary` on values whose revealed ones equal `revealed` and that satisfy `predicates`, all
 * with one link secret, for this nonce. Checks, each failing as `false`: sub-proof count; the
 * revealed names and values; the predicate set; the link secret's m̂ equal in all sub-proofs;
 * each predicate's m_j equal to the equality proof's m̂ (stricter than anoncreds-rs); c_list equal
 * to the Â and T values the sub-proofs carry (stricter); every response under 2^4096 and c_hash
 * under 2^256 (stricter); a `non_revoc_proof` exactly where `revocation` is given (stricter:
 * anoncreds-clsignatures-rs skips one it has no keys for); the recomputed c_hash, which covers
 * each sub-proof's non-revocation taus before its primary taus.
 * @throws ProofFormatError for malformed input (missing members, non-decimal numbers, unknown
 *   predicate types, invalid curve values in a non-revocation proof or the revocation inputs).
 * @throws Error when a sub-proof carries a non-revocation proof but no `revocation` is given.
 */
export function verifyProof(input: VerifyProofInput): boolean {
  const nonce = parseNatural(input.nonce, 'nonce')
  if (!Array.isArray(input.subProofs)) throw new ProofFormatError('subProofs: expected an array')
  const proof = parseProof(input.proof)
  const expected = input.subProofs.map((sub, i) => ({
    key: primaryKey(sub.primary),
    revealed: parseBigRecord(sub.revealed ?? {}, `subProofs[${i}].revealed`),
    predicates: (sub.predicates ?? []).map((p, j) => checkPredicate(p, `subProofs[${i}].predicates[${j}]`)),
  }))
  if (proof.proofs.length !== expected.length || proof.proofs.length === 0) return false
  if (proof.proofs.some((sub, i) => sub.hasNonRevocation && input.subProofs[i]!.revocation === undefined)) {
    throw new Error('a non-revocation proof needs the revocation public key, registry key and accumulator')
  }
  if (proof.proofs.some((sub, i) => !sub.hasNonRevocation && input.subProofs[i]!.revocation !== undefined)) return false
  if (proof.cHash < 0n || proof.cHash >= 1n << 256n || !proof.proofs.every(withinBounds)) return false

  const tauList: Array<bigint | Uint8Array> = []
  const committed: Array<bigint | Uint8Array> = []
  let linkSecretHat: bigint | undefined
  for (let i = 0; i < proof.proofs.length; i++) {
    const sub = proof.proofs[i]!
    const { key, revealed, predicates } = expected[i]!
    if (!sameRevealed(sub, revealed) || !samePredicates(sub, predicates)) return false
    if (revealed.has(LINK_SECRET_ATTRIBUTE) || !key.r.has(LINK_SECRET_ATTRIBUTE)) return false
    const hidden = [...key.r.keys()].filter((name) => !revealed.has(name))
    const mHat = sub.eq.m.get(LINK_SECRET_ATTRIBUTE)
    if (mHat === undefined || (linkSecretHat !== undefined && mHat !== linkSecretHat)) return false
    linkSecretHat = mHat
    for (const ge of sub.ge) {
      const name = ge.predicate.attr_name
      if (!hidden.includes(name) || sub.eq.m.get(name) !== ge.mj) return false
    }

    const revocation = input.subProofs[i]!.revocation
    if (revocation !== undefined) {
      const nonRevocation = nonRevocationSubProof(input.proof, i, revocation, proof.cHash, sub.eq.m2)
      tauList.push(...nonRevocation.taus)
      committed.push(...nonRevocation.cList)
    }
    const tEq = equalityTau(key, sub.eq, proof.cHash, hidden)
    if (tEq === undefined) return false
    tauList.push(tEq)
    committed.push(sub.eq.aPrime)
    for (const ge of sub.ge) {
      const taus = predicateTaus(key, ge, proof.cHash)
      if (taus === undefined) return false
      tauList.push(...taus)
      committed.push(...ge.t)
    }
  }
  if (committed.length !== proof.cList.length) return false
  if (committed.some((value, i) => !sameCommitted(value, proof.cList[i]!))) return false
  return challengeHash(tauList, proof.cList, nonce) === proof.cHash
}

/** A committed value (number, or curve point as `to_bytes`) against its c_list entry. */
function sameCommitted(value: bigint | Uint8Array, entry: Uint8Array): boolean {
  if (typeof value !== 'bigint') return bytesEqual(value, entry)
  return value >= 0n && bytesEqual(bigIntToBytes(value), entry)
}

/**
 * The non-revocation taus of sub-proof `index` (as hashed) and its c_list points (as `to_bytes`,
 * E, D, A, G, W, S, U), read from the raw proof JSON (`parseProof` checked its structure).
 */
function nonRevocationSubProof(
  proofJson: unknown,
  index: number,
  revocation: VerifierRevocation,
  cHash: bigint,
  m2: bigint,
): { taus: Uint8Array[]; cList: Uint8Array[] } {
  const raw = (proofJson as { proofs: Array<{ non_revoc_proof: unknown }> }).proofs[index]!.non_revoc_proof
  try {
    return revocationTaus(raw, revocation.publicKey, revocation.registryPublicKey, revocation.accumulator, { cHash, m2 })
  } catch (error) {
    if (error instanceof RevocationFormatError) throw new ProofFormatError(`proof.proofs[${index}].${error.message}`)
    throw error
  }
}

/**
 * Honest responses stay under 3,062 bits (v̂); refusing anything beyond 4,096 bits keeps a forged
 * proof from growing the cached fixed-base tables or spending time on huge exponents.
 */
const MAX_RESPONSE = 1n << 4096n

function withinBounds(sub: ParsedSubProof): boolean {
  const small = (x: bigint) => x > -MAX_RESPONSE && x < MAX_RESPONSE
  const { eq } = sub
  if (![eq.aPrime, eq.e, eq.v, eq.m2, ...eq.m.values(), ...eq.revealed.values()].every(small)) return false
  return sub.ge.every((ge) => [...ge.u, ...ge.r, ...ge.t, ge.mj, ge.alpha].every(small))
}

function sameRevealed(sub: ParsedSubProof, expected: Map<string, bigint>): boolean {
  if (sub.eq.revealed.size !== expected.size) return false
  for (const [name, value] of expected) if (sub.eq.revealed.get(name) !== value) return false
  return true
}

/** Set equality, as anoncreds-clsignatures-rs compares `BTreeSet<Predicate>`s. */
function samePredicates(sub: ParsedSubProof, expected: Predicate[]): boolean {
  const want = new Set(expected.map(predicateId))
  const got = new Set(sub.ge.map((ge) => predicateId(ge.predicate)))
  return want.size === got.size && [...want].every((id) => got.has(id))
}
