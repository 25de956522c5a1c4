/**
 * Predicate arithmetic as anoncreds-clsignatures-rs defines it (`Predicate::get_delta`,
 * `get_delta_prime`, `is_less` in `src/types.rs`); AnonCreds specification, "Predicates".
 *
 * The prover commits to Δ ≥ 0 and proves it is a sum of four squares:
 *   GE: Δ = m − v       GT: Δ = m − v − 1     (is_less false; verifier uses z^Δ' · T_Δ)
 *   LE: Δ = v − m       LT: Δ = v − m − 1     (is_less true;  verifier uses z^Δ' · T_Δ^-1)
 * with Δ' = v (GE, LE), v + 1 (GT), v − 1 (LT), so that z^Δ'·T_Δ^±1 commits to m itself.
 */
import { ProofFormatError } from './parse.ts'
import type { Predicate, PredicateType } from './types.ts'

const ORDER: Record<PredicateType, number> = { GE: 0, LE: 1, GT: 2, LT: 3 }
const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

/**
 * The predicate with its members checked.
 * @throws ProofFormatError for an unknown p_type, a missing name, or a value outside 32 bits.
 */
export function checkPredicate(value: unknown, what: string): Predicate {
  const p = value as Partial<Predicate> | null
  if (typeof p !== 'object' || p === null) throw new ProofFormatError(`${what}: expected an object`)
  if (typeof p.attr_name !== 'string' || p.attr_name === '') throw new ProofFormatError(`${what}.attr_name: expected a name`)
  if (typeof p.p_type !== 'string' || !(p.p_type in ORDER)) throw new ProofFormatError(`${what}.p_type: expected GE, GT, LE or LT`)
  if (!isInt32(p.value)) throw new ProofFormatError(`${what}.value: expected a 32-bit integer`)
  return { attr_name: p.attr_name, p_type: p.p_type, value: p.value }
}

/** Whether the proof works on T_Δ^-1 (LE, LT). */
export function isLess(p: Predicate): boolean {
  return p.p_type === 'LE' || p.p_type === 'LT'
}

/** Δ for attribute value `m` (negative when the predicate does not hold). */
export function delta(p: Predicate, m: bigint): bigint {
  const v = BigInt(p.value)
  switch (p.p_type) {
    case 'GE':
      return m - v
    case 'GT':
      return m - v - 1n
    case 'LE':
      return v - m
    case 'LT':
      return v - m - 1n
  }
}

/** Δ' of the verifier: z^Δ' · T_Δ^(±1) commits to the attribute value. */
export function deltaPrime(p: Predicate): bigint {
  const v = BigInt(p.value)
  return p.p_type === 'GT' ? v + 1n : p.p_type === 'LT' ? v - 1n : v
}

/**
 * The predicates sorted and deduplicated as the `BTreeSet<Predicate>` of anoncreds-clsignatures-rs
 * orders them (attr_name bytewise, then GE < LE < GT < LT, then value): the order of `ge_proofs`.
 */
export function sortPredicates(predicates: readonly Predicate[]): Predicate[] {
  const seen = new Set<string>()
  return [...predicates].sort(comparePredicates).filter((p) => {
    const id = predicateId(p)
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}

/** A string identifying a predicate, for set comparisons. */
export function predicateId(p: Predicate): string {
  return `${p.attr_name}\u0000${p.p_type}\u0000${p.value}`
}

function comparePredicates(a: Predicate, b: Predicate): number {
  const byName = compareBytes(a.attr_name, b.attr_name)
  if (byName !== 0) return byName
  if (a.p_type !== b.p_type) return ORDER[a.p_type] - ORDER[b.p_type]
  return a.value - b.value
}

function compareBytes(a: string, b: string): number {
  const ea = new TextEncoder().encode(a)
  const eb = new TextEncoder().encode(b)
  for (let i = 0; i < Math.min(ea.length, eb.length); i++) if (ea[i] !== eb[i]) return ea[i]! - eb[i]!
  return ea.length - eb.length
}

function isInt32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX
}
