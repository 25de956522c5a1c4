/**
 * The verifier's reconstruction of a primary sub-proof's tau values from the responses and the
 * challenge (anoncreds-clsignatures-rs `ProofVerifier::_verify_equality`, `_verify_ne_predicate`,
 * helpers `calc_teq`, `calc_tne`; AnonCreds specification, "Verify Presentation"):
 *   T̂_eq = Â^(ê + c·2^596) · Π_hidden R_k^m̂_k · S^v̂ · R_ctxt^m̂2 · Π_revealed R_j^(c·m_j) · Z^-c
 *   τ̂_i  = Z^û_i · S^r̂_i · T_i^-c                                  (i = 0…3)
 *   τ̂_Δ  = Z^(m̂_j − c·Δ') · S^(±r̂_Δ) · T_Δ^(∓c)                     (− for LE, LT)
 *   τ̂_Q  = Π T_i^û_i · S^α̂ · T_Δ^-c
 * Values equal anoncreds-rs's bit for bit (all are canonical residues mod n).
 */
import { E_START } from './constants.ts'
import { batchInverse, PowerProduct } from './exponentiation.ts'
import type { PrimaryKey } from './key.ts'
import type { ParsedEqualProof, ParsedPredicateProof } from './parse-proof.ts'
import { deltaPrime, isLess } from './predicate.ts'

/**
 * T̂_eq for `hidden` attributes (every key attribute not revealed), or undefined when the proof
 * lacks a hidden attribute's m̂ or reveals one the key has no R for, or Â is not invertible
 * where needed.
 */
export function equalityTau(key: PrimaryKey, eq: ParsedEqualProof, c: bigint, hidden: readonly string[]): bigint | undefined {
  const product = new PowerProduct(key.n)
    .variable(eq.aPrime, eq.e + c * E_START)
    .fixed(key.s, eq.v)
    .fixed(key.rctxt, eq.m2)
    .fixed(key.z, -c)
  for (const name of hidden) {
    const mHat = eq.m.get(name)
    const r = key.r.get(name)
    if (mHat === undefined || r === undefined) return undefined
    product.fixed(r, mHat)
  }
  for (const [name, value] of eq.revealed) {
    const r = key.r.get(name)
    if (r === undefined) return undefined
    product.fixed(r, c * value)
  }
  return evaluate(product)
}

/** τ̂_0…τ̂_3, τ̂_Δ, τ̂_Q of one predicate proof, or undefined when a T is not invertible. */
export function predicateTaus(key: PrimaryKey, ge: ParsedPredicateProof, c: bigint): bigint[] | undefined {
  let inverses: bigint[]
  try {
    inverses = batchInverse(ge.t, key.n)
  } catch {
    return undefined
  }
  const product = () => new PowerProduct(key.n)
  const taus: Array<bigint | undefined> = []
  for (let i = 0; i < 4; i++) taus.push(evaluate(product().fixed(key.z, ge.u[i]!).fixed(key.s, ge.r[i]!).variable(inverses[i]!, c)))
  const less = isLess(ge.predicate)
  const tDelta = ge.t[4]!
  taus.push(
    evaluate(
      product()
        .fixed(key.z, ge.mj - c * deltaPrime(ge.predicate))
        .fixed(key.s, less ? -ge.r[4]! : ge.r[4]!)
        .variable(less ? tDelta : inverses[4]!, c),
    ),
  )
  const q = product().fixed(key.s, ge.alpha).variable(inverses[4]!, c)
  for (let i = 0; i < 4; i++) q.variable(ge.t[i]!, ge.u[i]!)
  taus.push(evaluate(q))
  return taus.every((t) => t !== undefined) ? (taus as bigint[]) : undefined
}

/** The product's value, or undefined when a negative exponent meets a non-invertible base. */
function evaluate(product: PowerProduct): bigint | undefined {
  try {
    return product.value()
  } catch (error) {
    if (error instanceof RangeError) return undefined
    throw error
  }
}
