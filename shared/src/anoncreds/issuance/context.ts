/** The credential context m_2, bound into every credential. */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToBigInt, hashBigInts } from '../math/index.ts'
import { InvalidIssuanceInputError } from './errors.ts'

/** SHA-256 of UTF-8 text with the digest read little-endian (anoncreds-clsignatures `encode_attribute(…, Little)`). */
function hashLittleEndian(text: string): bigint {
  return bytesToBigInt(sha256(new TextEncoder().encode(text)).reverse())
}

/**
 * The credential context m_2 = H(enc(proverId), enc(String(index))), where enc is SHA-256 of the
 * UTF-8 text read as a little-endian integer and H is the challenge hash (SHA-256 over minimal
 * big-endian bytes, read big-endian). The index is the revocation registry index, or -1 for a
 * credential without revocation.
 *
 * @param proverId the credential request's `entropy` (or legacy `prover_did`)
 * @param revocationIndex the registry index (1-based, as `r_credential.i`), omitted without revocation
 * @returns m_2, a 256-bit non-negative integer
 * @throws InvalidIssuanceInputError when the index is not an integer in [1, 2^31 - 1]
 *
 * Spec: AnonCreds v1 specification, "Issue Credential" (credential context m2);
 * anoncreds-clsignatures `Issuer::_gen_credential_context`.
 */
export function credentialContext(proverId: string, revocationIndex?: number): bigint {
  if (revocationIndex !== undefined && (!Number.isInteger(revocationIndex) || revocationIndex < 1 || revocationIndex > 2 ** 31 - 1)) {
    throw new InvalidIssuanceInputError('revocation index must be an integer in [1, 2^31 - 1]')
  }
  const index = revocationIndex ?? -1
  return hashBigInts([hashLittleEndian(proverId), hashLittleEndian(String(index))])
}
