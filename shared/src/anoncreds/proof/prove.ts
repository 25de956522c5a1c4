/**
 * Creating a CL proof over one or more credentials (anoncreds-clsignatures-rs `ProofBuilder`:
 * `_init_eq_proof`, `_init_ne_proof`, `finalize`; AnonCreds specification, "Generate
 * Presentation"). Every T the prover computes uses only fixed bases (the issuer key's, and the
 * credential's A, whose table is kept per credential), since the prover knows all discrete logs involved:
 *   Â^ẽ = A^ẽ·S^(r·ẽ),   Π T_i^ũ_i = Z^(Σ u_i·ũ_i)·S^(Σ r_i·ũ_i).
 */
import { fourSquares, randomBits } from '../math/index.ts'
import { challengeHash } from './challenge.ts'
import {
  ALPHA_TILDE_BITS,
  DELTA_KEY,
  E_START,
  E_TILDE_BITS,
  M2_TILDE_BITS,
  M_TILDE_BITS,
  R_BITS,
  R_TILDE_BITS,
  SQUARE_KEYS,
  U_TILDE_BITS,
  V_TILDE_BITS,
} from './constants.ts'
import { PowerProduct } from './exponentiation.ts'
import { primaryKey, signatureBase, type PrimaryKey } from './key.ts'
import { bigIntToBytes, parseBig, parseNatural, ProofFormatError, toByteArray, toDecimal } from './parse.ts'
import { checkPredicate, delta, isLess, sortPredicates } from './predicate.ts'
import type {
  CredentialPrimaryPublicKey,
  DecimalString,
  Predicate,
  PrimaryCredentialSignature,
  PrimaryPredicateProof,
  Proof,
  SubProof,
} from './types.ts'
import { LINK_SECRET_ATTRIBUTE } from '../encoding/index.ts'

/** One credential to prove from. Attribute names normalised; values encoded (decimal strings). */
export interface ProverSubProof {
  primary: CredentialPrimaryPublicKey
  p_credential: PrimaryCredentialSignature
  /** Encoded value of every credential attribute except `master_secret`. */
  encodedValues: Record<string, DecimalString>
  /** Attributes to disclose (never `master_secret`). */
  revealed: string[]
  predicates: Predicate[]
}

/** Input of `createProof`; nonce and link secret as decimal strings (or bigints). */
export interface CreateProofInput {
  nonce: DecimalString | bigint
  linkSecret: DecimalString | bigint
  subProofs: ProverSubProof[]
}

/** Thrown when a predicate does not hold for the credential's value. */
export class PredicateNotSatisfiedError extends Error {
  override name = 'PredicateNotSatisfiedError'
}

interface PredicateInit {
  predicate: Predicate
  u: bigint[]
  r: bigint[] // r_0…r_3, then r_Δ
  t: bigint[] // T_0…T_3, then T_Δ
  uTilde: bigint[]
  rTilde: bigint[] // r̃_0…r̃_3, then r̃_Δ
  alphaTilde: bigint
}

interface SubProofInit {
  key: PrimaryKey
  values: Map<string, bigint> // every attribute incl. master_secret
  revealed: string[] // sorted
  hidden: string[] // sorted
  a: bigint
  aPrime: bigint
  ePrime: bigint
  vPrime: bigint
  eTilde: bigint
  vTilde: bigint
  /** r·ẽ: Â^ẽ = A^ẽ·S^(r·ẽ) */
  rETilde: bigint
  mTilde: Map<string, bigint>
  m2: bigint
  m2Tilde: bigint
  predicates: PredicateInit[]
}

/**
 * A CL proof (JSON as anoncreds-rs writes `presentation.proof`) that the holder of `linkSecret`
 * has the CL signatures `p_credential`, disclosing `revealed` and proving `predicates`; the link
 * secret's m̃ is shared by all sub-proofs. Sub-proofs keep the input order; each `ge_proofs`
 * follows anoncreds-rs's predicate order (see `sortPredicates`). `non_revoc_proof` is null.
 * @throws ProofFormatError for malformed input or inconsistent attributes (unknown, revealed
 *   `master_secret`, revealed and in a predicate, values not matching the key's attributes).
 * @throws PredicateNotSatisfiedError when a predicate does not hold.
 */
export function createProof(input: CreateProofInput): Proof {
  const nonce = parseNatural(input.nonce, 'nonce')
  const linkSecret = parseNatural(input.linkSecret, 'linkSecret')
  if (!Array.isArray(input.subProofs) || input.subProofs.length === 0) throw new ProofFormatError('subProofs: expected a non-empty array')
  const linkSecretTilde = randomBits(M_TILDE_BITS)
  const inits = input.subProofs.map((sub, i) => initSubProof(sub, linkSecret, linkSecretTilde, `subProofs[${i}]`))

  const tauList: bigint[] = []
  const cList: bigint[] = []
  for (const init of inits) {
    tauList.push(equalityTau(init))
    cList.push(init.aPrime)
    for (const p of init.predicates) {
      tauList.push(...predicateTaus(init.key, p, init.mTilde.get(p.predicate.attr_name)!))
      cList.push(...p.t)
    }
  }
  const c = challengeHash(tauList, cList.map(bigIntToBytes), nonce)

  const proofs: SubProof[] = inits.map((init) => finalizeSubProof(init, c))
  return { proofs, aggregated_proof: { c_hash: toDecimal(c), c_list: cList.map(toByteArray) } }
}

function initSubProof(sub: ProverSubProof, linkSecret: bigint, linkSecretTilde: bigint, what: string): SubProofInit {
  const key = primaryKey(sub.primary)
  const values = new Map<string, bigint>()
  for (const [name, v] of Object.entries(sub.encodedValues ?? {})) {
    if (name === LINK_SECRET_ATTRIBUTE)
      throw new ProofFormatError(`${what}.encodedValues: ${LINK_SECRET_ATTRIBUTE} is the link secret, not a value`)
    values.set(name, parseBig(v, `${what}.encodedValues.${name}`))
  }
  values.set(LINK_SECRET_ATTRIBUTE, linkSecret)
  const keyNames = [...key.r.keys()]
  if (keyNames.length !== values.size || keyNames.some((name) => !values.has(name))) {
    throw new ProofFormatError(`${what}: the credential's attributes do not match the key's (${keyNames.sort().join(', ')})`)
  }
  const revealed = [...new Set(sub.revealed ?? [])].sort()
  for (const name of revealed) {
    if (name === LINK_SECRET_ATTRIBUTE) throw new ProofFormatError(`${what}: ${LINK_SECRET_ATTRIBUTE} cannot be revealed`)
    if (!values.has(name)) throw new ProofFormatError(`${what}: revealed attribute '${name}' is not in the credential`)
  }
  const hidden = [...values.keys()].filter((name) => !revealed.includes(name)).sort()
  const predicates = sortPredicates((sub.predicates ?? []).map((p, i) => checkPredicate(p, `${what}.predicates[${i}]`)))

  const a = parseBig(sub.p_credential?.a, `${what}.p_credential.a`)
  const e = parseBig(sub.p_credential?.e, `${what}.p_credential.e`)
  const v = parseBig(sub.p_credential?.v, `${what}.p_credential.v`)
  const m2 = parseBig(sub.p_credential?.m_2, `${what}.p_credential.m_2`)

  const r = randomBits(R_BITS)
  const eTilde = randomBits(E_TILDE_BITS)
  const mTilde = new Map<string, bigint>()
  for (const name of hidden) mTilde.set(name, name === LINK_SECRET_ATTRIBUTE ? linkSecretTilde : randomBits(M_TILDE_BITS))
  const init: SubProofInit = {
    key,
    values,
    revealed,
    hidden,
    a,
    aPrime: (a * new PowerProduct(key.n).fixed(key.s, r).value()) % key.n,
    ePrime: e - E_START,
    vPrime: v - e * r,
    eTilde,
    vTilde: randomBits(V_TILDE_BITS),
    rETilde: r * eTilde,
    mTilde,
    m2,
    m2Tilde: randomBits(M2_TILDE_BITS),
    predicates: [],
  }
  init.predicates = predicates.map((p) => initPredicate(init, p, what))
  return init
}

function equalityTau(init: SubProofInit): bigint {
  const { key } = init
  // Â^ẽ = A^ẽ · S^(r·ẽ); A is the same in every presentation of the credential: a fixed base
  const product = new PowerProduct(key.n)
    .fixed(signatureBase(key, init.a), init.eTilde)
    .fixed(key.s, init.vTilde + init.rETilde)
    .fixed(key.rctxt, init.m2Tilde)
  for (const name of init.hidden) product.fixed(key.r.get(name)!, init.mTilde.get(name)!)
  return product.value()
}

function initPredicate(init: SubProofInit, predicate: Predicate, what: string): PredicateInit {
  const name = predicate.attr_name
  if (!init.values.has(name)) throw new ProofFormatError(`${what}: predicate attribute '${name}' is not in the credential`)
  if (init.revealed.includes(name)) throw new ProofFormatError(`${what}: '${name}' cannot be both revealed and in a predicate`)
  const value = init.values.get(name)!
  if (value < -(2n ** 31n) || value >= 2n ** 31n) {
    throw new ProofFormatError(`${what}: '${name}' is not a 32-bit integer value, predicates need one`)
  }
  const d = delta(predicate, value)
  if (d < 0n) {
    throw new PredicateNotSatisfiedError(`predicate ${name} ${predicate.p_type} ${predicate.value} does not hold for the credential`)
  }
  const { key } = init
  const u = fourSquares(d)
  const r = [...SQUARE_KEYS.map(() => randomBits(R_BITS)), randomBits(R_BITS)]
  const commit = (m: bigint, ri: bigint) => new PowerProduct(key.n).fixed(key.z, m).fixed(key.s, ri).value()
  const t = [...u.map((ui, i) => commit(ui, r[i]!)), commit(d, r[4]!)]
  return {
    predicate,
    u,
    r,
    t,
    uTilde: SQUARE_KEYS.map(() => randomBits(U_TILDE_BITS)),
    rTilde: [...SQUARE_KEYS.map(() => randomBits(R_TILDE_BITS)), randomBits(R_TILDE_BITS)],
    alphaTilde: randomBits(ALPHA_TILDE_BITS),
  }
}

/** tau_0…tau_3, tau_Δ, tau_Q of one predicate (anoncreds-clsignatures-rs `calc_tne`). */
function predicateTaus(key: PrimaryKey, p: PredicateInit, mjTilde: bigint): bigint[] {
  const product = () => new PowerProduct(key.n)
  const taus = SQUARE_KEYS.map((_, i) => product().fixed(key.z, p.uTilde[i]!).fixed(key.s, p.rTilde[i]!).value())
  const rDeltaTilde = p.rTilde[4]!
  taus.push(
    product()
      .fixed(key.z, mjTilde)
      .fixed(key.s, isLess(p.predicate) ? -rDeltaTilde : rDeltaTilde)
      .value(),
  )
  // Π T_i^ũ_i · S^α̃ with T_i = Z^u_i·S^r_i
  let zExp = 0n
  let sExp = p.alphaTilde
  for (let i = 0; i < 4; i++) {
    zExp += p.u[i]! * p.uTilde[i]!
    sExp += p.r[i]! * p.uTilde[i]!
  }
  taus.push(product().fixed(key.z, zExp).fixed(key.s, sExp).value())
  return taus
}

function finalizeSubProof(init: SubProofInit, c: bigint): SubProof {
  const m: Record<string, DecimalString> = {}
  for (const name of init.hidden) m[name] = toDecimal(c * init.values.get(name)! + init.mTilde.get(name)!)
  const revealedAttrs: Record<string, DecimalString> = {}
  for (const name of init.revealed) revealedAttrs[name] = toDecimal(init.values.get(name)!)
  const eq = {
    revealed_attrs: revealedAttrs,
    a_prime: toDecimal(init.aPrime),
    e: toDecimal(c * init.ePrime + init.eTilde),
    v: toDecimal(c * init.vPrime + init.vTilde),
    m,
    m2: toDecimal(c * init.m2 + init.m2Tilde),
  }
  const ge = init.predicates.map((p): PrimaryPredicateProof => {
    const u: Record<string, DecimalString> = {}
    const r: Record<string, DecimalString> = {}
    const t: Record<string, DecimalString> = {}
    let urProduct = 0n
    SQUARE_KEYS.forEach((k, i) => {
      u[k] = toDecimal(c * p.u[i]! + p.uTilde[i]!)
      r[k] = toDecimal(c * p.r[i]! + p.rTilde[i]!)
      t[k] = toDecimal(p.t[i]!)
      urProduct += p.u[i]! * p.r[i]!
    })
    r[DELTA_KEY] = toDecimal(c * p.r[4]! + p.rTilde[4]!)
    t[DELTA_KEY] = toDecimal(p.t[4]!)
    return {
      u,
      r,
      mj: m[p.predicate.attr_name]!,
      alpha: toDecimal((p.r[4]! - urProduct) * c + p.alphaTilde),
      t,
      predicate: { ...p.predicate },
    }
  })
  return { primary_proof: { eq_proof: eq, ge_proofs: ge }, non_revoc_proof: null }
}
