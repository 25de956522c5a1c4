/** The issuer's primary public key, parsed once from its JSON shape. */
import { parseDecimal, toDecimal } from './decimal.ts'
import { InvalidIssuanceInputError } from './errors.ts'
import type { CredentialPrimaryPublicKey } from './types.ts'

/** `CredentialPrimaryPublicKey` with bigints; `r` keeps the JSON's attribute order. */
export interface PrimaryKey {
  n: bigint
  s: bigint
  r: Map<string, bigint>
  rctxt: bigint
  z: bigint
}

/**
 * Parses `credentialDefinition.value.primary`.
 * @throws InvalidIssuanceInputError when a value is not a decimal integer, n < 3, or r is empty.
 */
export function parsePrimaryKey(json: CredentialPrimaryPublicKey): PrimaryKey {
  if (json === null || typeof json !== 'object') throw new InvalidIssuanceInputError('primary key must be an object')
  const n = parseDecimal(json.n, 'primary.n')
  if (n < 3n || n % 2n === 0n) throw new InvalidIssuanceInputError('primary.n must be an odd modulus')
  if (json.r === null || typeof json.r !== 'object') throw new InvalidIssuanceInputError('primary.r must be an object')
  const r = new Map<string, bigint>()
  for (const [name, value] of Object.entries(json.r)) r.set(name, parseDecimal(value, `primary.r.${name}`))
  if (r.size === 0) throw new InvalidIssuanceInputError('primary.r is empty')
  return {
    n,
    s: parseDecimal(json.s, 'primary.s'),
    r,
    rctxt: parseDecimal(json.rctxt, 'primary.rctxt'),
    z: parseDecimal(json.z, 'primary.z'),
  }
}

/** The JSON shape of a parsed primary key (decimal strings, `r` in its map order). */
export function primaryKeyToJson(key: PrimaryKey): CredentialPrimaryPublicKey {
  const r: Record<string, string> = {}
  for (const [name, value] of key.r) r[name] = toDecimal(value)
  return { n: toDecimal(key.n), s: toDecimal(key.s), r, rctxt: toDecimal(key.rctxt), z: toDecimal(key.z) }
}

/**
 * The R_i of an attribute.
 * @throws InvalidIssuanceInputError when the key has no such attribute.
 */
export function attributeBase(key: PrimaryKey, name: string): bigint {
  const base = key.r.get(name)
  if (base === undefined) throw new InvalidIssuanceInputError(`attribute '${name}' is not in the credential definition`)
  return base
}
