import { z } from 'zod'
import { sortedRecord } from './parse.ts'
import { decimal, nullable, pointString, scalarHex } from './primitives.ts'

/** A `BTreeMap<String, BigNumber>`: parsed in any order, kept sorted like serde writes it. */
const btreeDecimals = z.record(z.string(), decimal).transform(sortedRecord)

// Shapes of the CL values inside AnonCreds objects, field order as anoncreds-clsignatures-rs
// (`src/types.rs`) declares them. `HashMap` fields keep their input order; `BTreeMap` fields are
// sorted when serialised (see the `*ToJson` functions).

/** `CredentialPrimaryPublicKey`: `{ n, s, r: { attr: decimal }, rctxt, z }`. */
export const credentialPrimaryPublicKey = z.object({
  n: decimal,
  s: decimal,
  r: z.record(z.string(), decimal),
  rctxt: decimal,
  z: decimal,
})
/** The issuer's primary public key. */
export type CredentialPrimaryPublicKey = z.output<typeof credentialPrimaryPublicKey>

/** `CredentialRevocationPublicKey` (points kept as AMCL strings; revocation is not supported yet). */
export const credentialRevocationPublicKey = z.object({
  g: pointString,
  g_dash: pointString,
  h: pointString,
  h0: pointString,
  h1: pointString,
  h2: pointString,
  htilde: pointString,
  h_cap: pointString,
  u: pointString,
  pk: pointString,
  y: pointString,
})

/** `CredentialPrivateKey`: `{ p_key: { p, q }, r_key: { x, sk } | null }`. */
export const credentialPrivateKey = z.object({
  p_key: z.object({ p: decimal, q: decimal }),
  r_key: nullable(z.object({ x: scalarHex, sk: scalarHex })),
})

/** `CredentialKeyCorrectnessProof`: `{ c, xz_cap, xr_cap: [[attr, decimal], ...] }`. */
export const keyCorrectnessProof = z.object({
  c: decimal,
  xz_cap: decimal,
  xr_cap: z.array(z.tuple([z.string(), decimal])),
})
/** The issuer's key-correctness proof. */
export type KeyCorrectnessProof = z.output<typeof keyCorrectnessProof>

/** `BlindedCredentialSecrets` (`blinded_ms`). `hidden_attributes` and `committed_attributes` are BTree (sorted). */
export const blindedCredentialSecrets = z.object({
  u: decimal,
  ur: nullable(pointString),
  hidden_attributes: z.array(z.string()).transform((names) => [...names].sort()),
  committed_attributes: btreeDecimals,
})

/** `BlindedCredentialSecretsCorrectnessProof`; `m_caps`, `r_caps` are BTree (sorted). */
export const blindedCredentialSecretsCorrectnessProof = z.object({
  c: decimal,
  v_dash_cap: decimal,
  m_caps: btreeDecimals,
  r_caps: btreeDecimals,
})

/** `CredentialSecretsBlindingFactors`: `{ v_prime, vr_prime | null }`. */
export const credentialSecretsBlindingFactors = z.object({
  v_prime: decimal,
  vr_prime: nullable(scalarHex),
})

/** `PrimaryCredentialSignature`: `{ m_2, a, e, v }`. */
export const primaryCredentialSignature = z.object({ m_2: decimal, a: decimal, e: decimal, v: decimal })
/** The primary CL signature. */
export type PrimaryCredentialSignature = z.output<typeof primaryCredentialSignature>

/** `NonRevocationCredentialSignature` (kept loosely: revocation is not supported yet). */
export const nonRevocationCredentialSignature = z.object({
  sigma: pointString,
  c: scalarHex,
  vr_prime_prime: scalarHex,
  witness_signature: z.object({ sigma_i: pointString, u_i: pointString, g_i: pointString }),
  g_i: pointString,
  i: z.number().int(),
  m2: scalarHex,
})

/** `CredentialSignature`: `{ p_credential, r_credential | null }`. */
export const credentialSignature = z.object({
  p_credential: primaryCredentialSignature,
  r_credential: nullable(nonRevocationCredentialSignature),
})

/** `SignatureCorrectnessProof`: `{ se, c }`. */
export const signatureCorrectnessProof = z.object({ se: decimal, c: decimal })

/** `RevocationRegistry`: `{ accum }`. */
export const revocationRegistry = z.object({ accum: pointString })

/** `Witness`: `{ omega }`. */
export const witness = z.object({ omega: pointString })

/** CL predicate types as written inside proofs. */
export const clPredicateType = z.enum(['GE', 'LE', 'GT', 'LT'])

/** `Predicate` inside a `ge_proof`: `{ attr_name, p_type: 'GE' | ..., value }`. */
export const clPredicate = z.object({ attr_name: z.string(), p_type: clPredicateType, value: z.number().int() })

/** `PrimaryEqualProof`; `revealed_attrs` is BTree (sorted), `m` a HashMap. */
export const primaryEqualProof = z.object({
  revealed_attrs: btreeDecimals,
  a_prime: decimal,
  e: decimal,
  v: decimal,
  m: z.record(z.string(), decimal),
  m2: decimal,
})

/** `PrimaryPredicateInequalityProof` (`ge_proofs` entries). */
export const primaryPredicateInequalityProof = z.object({
  u: z.record(z.string(), decimal),
  r: z.record(z.string(), decimal),
  mj: decimal,
  alpha: decimal,
  t: z.record(z.string(), decimal),
  predicate: clPredicate,
})

/** `PrimaryProof`: `{ eq_proof, ge_proofs }`. */
export const primaryProof = z.object({
  eq_proof: primaryEqualProof,
  ge_proofs: z.array(primaryPredicateInequalityProof),
})

/** `SubProof`: `{ primary_proof, non_revoc_proof | null }` (non-revocation proofs kept opaque). */
export const subProof = z.object({
  primary_proof: primaryProof,
  non_revoc_proof: nullable(z.record(z.string(), z.unknown())),
})
/** One credential's sub-proof. */
export type SubProof = z.output<typeof subProof>

/** `AggregatedProof`: `{ c_hash, c_list: byte arrays }`. */
export const aggregatedProof = z.object({
  c_hash: decimal,
  c_list: z.array(z.array(z.number().int().min(0).max(255))),
})

/** `Proof`: `{ proofs, aggregated_proof }`. */
export const clProof = z.object({ proofs: z.array(subProof), aggregated_proof: aggregatedProof })
/** The CL proof of a presentation. */
export type ClProof = z.output<typeof clProof>
