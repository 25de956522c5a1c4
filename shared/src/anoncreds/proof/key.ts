/**
 * The issuer's primary public key as bigints with fixed-base tables, cached per key so repeated
 * proofs and verifications over one credential definition reuse the precomputation.
 */
import { FixedBase } from './exponentiation.ts'
import { parseBig, parseBigRecord, ProofFormatError } from './parse.ts'
import type { CredentialPrimaryPublicKey } from './types.ts'

/** A parsed primary public key: n and a fixed-base table for each of S, Z, R_ctxt, R_i. */
export interface PrimaryKey {
  n: bigint
  s: FixedBase
  z: FixedBase
  rctxt: FixedBase
  /** R per attribute name (the link secret's `master_secret` included). */
  r: Map<string, FixedBase>
}

const CACHE_SIZE = 16
const cache = new Map<string, PrimaryKey>()

/**
 * The parsed key with its tables, from a small LRU cache keyed by the key's values.
 * @throws ProofFormatError when a member is missing or not a decimal integer, or n < 2.
 */
export function primaryKey(json: CredentialPrimaryPublicKey): PrimaryKey {
  if (typeof json !== 'object' || json === null) throw new ProofFormatError('primary: expected an object')
  const id = cacheId(json)
  const hit = cache.get(id)
  if (hit) {
    cache.delete(id)
    cache.set(id, hit)
    return hit
  }
  const n = parseBig(json.n, 'primary.n')
  if (n < 2n) throw new ProofFormatError('primary.n: must be > 1')
  const table = (value: unknown, what: string) => new FixedBase(parseBig(value, what), n)
  const r = new Map<string, FixedBase>()
  for (const [name, value] of parseBigRecord(json.r, 'primary.r')) r.set(name, new FixedBase(value, n))
  const key: PrimaryKey = { n, s: table(json.s, 'primary.s'), z: table(json.z, 'primary.z'), rctxt: table(json.rctxt, 'primary.rctxt'), r }
  cache.set(id, key)
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!)
  return key
}

function cacheId(json: CredentialPrimaryPublicKey): string {
  const r = typeof json.r === 'object' && json.r !== null
    ? Object.entries(json.r).map(([k, v]) => [k, String(v)]).sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    : String(json.r)
  return JSON.stringify([[json.n, json.s, json.z, json.rctxt].map(String), r])
}
