/** Q = Z / (S^v · U · R_ctxt^m_2 · Π R_i^m_i) mod n: the value A^e must equal. */
import type { Modulus } from './modulus.ts'
import type { PrimaryKey } from './primaryKey.ts'

/**
 * Q of the CL signature equation A^e = Q (mod n).
 * @param key the parsed primary key
 * @param modulus arithmetic modulo key.n (CRT on the issuer side)
 * @param v v'' (issuer) or v = v' + v'' (holder)
 * @param m2 the credential context
 * @param values (R_i, m_i) pairs of the known attributes; a negative m_i (a negative 32-bit
 *   encoded value) means R_i^-|m_i|, as anoncreds-clsignatures `BigNumber::mod_exp` does
 * @param u the holder's blinded secrets U (issuer side), or undefined/0 (holder side)
 * @throws NotInvertibleError when the divisor is not a unit modulo n
 */
export function signatureQuotient(
  key: PrimaryKey,
  modulus: Modulus,
  v: bigint,
  m2: bigint,
  values: readonly (readonly [bigint, bigint])[],
  u?: bigint,
): bigint {
  const n = key.n
  let rx = modulus.pow(key.s, v)
  if (u !== undefined && u !== 0n) rx = (rx * u) % n
  rx = (rx * modulus.pow(key.rctxt, m2)) % n
  for (const [base, m] of values) rx = (rx * modulus.pow(base, m)) % n
  return (key.z * modulus.inverse(rx)) % n
}
