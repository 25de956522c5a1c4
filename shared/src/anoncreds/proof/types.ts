/**
 * JSON shapes of CL proofs as anoncreds-rs writes them (serde of anoncreds-clsignatures-rs):
 * big integers as decimal strings, `c_list` entries as arrays of byte values.
 */

/** A big integer as anoncreds-rs writes it in JSON: decimal digits, optional leading '-'. */
export type DecimalString = string

/** `credentialDefinition.value.primary`: n, S, Z, R_ctxt and one R per attribute. */
export interface CredentialPrimaryPublicKey {
  n: DecimalString
  s: DecimalString
  r: Record<string, DecimalString>
  rctxt: DecimalString
  z: DecimalString
}

/** `credential.signature.p_credential`: the CL signature (A, e, v) over the values and m2. */
export interface PrimaryCredentialSignature {
  m_2: DecimalString
  a: DecimalString
  e: DecimalString
  v: DecimalString
}

/** anoncreds-rs predicate types (`PredicateType` of anoncreds-clsignatures-rs). */
export type PredicateType = 'GE' | 'GT' | 'LE' | 'LT'

/** One predicate on a 32-bit integer attribute: `attr_name p_type value`. */
export interface Predicate {
  attr_name: string
  p_type: PredicateType
  value: number
}

/** `primary_proof.eq_proof`. */
export interface PrimaryEqualProof {
  revealed_attrs: Record<string, DecimalString>
  a_prime: DecimalString
  e: DecimalString
  v: DecimalString
  m: Record<string, DecimalString>
  m2: DecimalString
}

/** One entry of `primary_proof.ge_proofs` (u and t keyed '0'…'3', r and t also 'DELTA'). */
export interface PrimaryPredicateProof {
  u: Record<string, DecimalString>
  r: Record<string, DecimalString>
  mj: DecimalString
  alpha: DecimalString
  t: Record<string, DecimalString>
  predicate: Predicate
}

/** `proof.proofs[i]`; `non_revoc_proof` is always null here (revocation not implemented). */
export interface SubProof {
  primary_proof: { eq_proof: PrimaryEqualProof; ge_proofs: PrimaryPredicateProof[] }
  non_revoc_proof: null
}

/** `proof.aggregated_proof`: the Fiat–Shamir challenge and the committed values it covers. */
export interface AggregatedProof {
  c_hash: DecimalString
  c_list: number[][]
}

/** The `proof` member of an anoncreds-rs presentation. */
export interface Proof {
  proofs: SubProof[]
  aggregated_proof: AggregatedProof
}
