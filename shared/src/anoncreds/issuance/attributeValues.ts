/** Encoded attribute values checked against the key and paired with their bases R_i. */
import { parseDecimal } from './decimal.ts'
import { InvalidIssuanceInputError } from './errors.ts'
import type { PrimaryKey } from './primaryKey.ts'
import type { EncodedValues } from './types.ts'

/**
 * The (R_i, m_i) pairs for `values`, parsed once. Every attribute of the key must have a value
 * unless it is in `hidden` (blinded into U), and every value must name an attribute of the key.
 * @param values normalised name -> decimal string (may be negative: 32-bit encoded integers)
 * @param hidden attributes supplied blinded instead (`master_secret` on the issuer side)
 * @throws InvalidIssuanceInputError on a missing, unknown, duplicated or malformed value
 */
export function attributeTerms(key: PrimaryKey, values: EncodedValues, hidden: readonly string[] = []): [bigint, bigint][] {
  if (values === null || typeof values !== 'object') throw new InvalidIssuanceInputError('encoded values must be an object')
  const hiddenSet = new Set(hidden)
  for (const name of key.r.keys()) {
    if (!(name in values) && !hiddenSet.has(name)) {
      throw new InvalidIssuanceInputError(`credential attribute '${name}' value not provided`)
    }
  }
  return Object.entries(values).map(([name, value]) => {
    if (hiddenSet.has(name)) {
      throw new InvalidIssuanceInputError(`blinded credential secret '${name}' also given as a credential value`)
    }
    const base = key.r.get(name)
    if (base === undefined) throw new InvalidIssuanceInputError(`attribute '${name}' is not in the credential definition`)
    return [base, parseDecimal(value, `encoded value of '${name}'`, true)]
  })
}
