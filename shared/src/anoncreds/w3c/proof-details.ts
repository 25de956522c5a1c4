import { z } from 'zod'
import { ErrorCode, anoncredsError } from '../lib/errors.ts'
import { type W3cCredential, anoncredsProofOf } from '../objects/w3c-credential.ts'
import { decodeProofValue } from './proof-value.ts'

/**
 * `CredentialProofDetails` (handle type `CredentialProofInfo`, anoncreds-rs
 * `src/data_types/w3c/proof.rs`): `{ schema_id, cred_def_id, rev_reg_id, rev_reg_index, timestamp }`.
 */
export const credentialProofInfoSchema = z.object({
  schema_id: z.string(),
  cred_def_id: z.string(),
  rev_reg_id: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
  rev_reg_index: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? null),
  timestamp: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? null),
})
/** Identifiers of a W3C credential's AnonCreds proof. */
export type CredentialProofInfo = z.output<typeof credentialProofInfoSchema>

/**
 * anoncreds-rs `get_credential_proof_details`: the ids of a W3C credential's AnonCreds proof
 * (signature or presentation proof; `timestamp` only for the latter). Throws `AnoncredsError`
 * when the credential has no AnonCreds proof.
 */
export function credentialProofDetails(credential: W3cCredential): CredentialProofInfo {
  const proof = anoncredsProofOf(credential)
  if (!proof) throw anoncredsError(ErrorCode.Input, 'W3C credential has no anoncreds-2023 proof')
  const decoded = decodeProofValue(proof.proofValue)
  if (decoded.kind === 'presentation') throw anoncredsError(ErrorCode.Input, 'Unexpected DataIntegrityProof')
  return {
    schema_id: decoded.value.schema_id,
    cred_def_id: decoded.value.cred_def_id,
    rev_reg_id: decoded.value.rev_reg_id ?? null,
    rev_reg_index: null,
    timestamp: decoded.kind === 'credentialPresentation' ? (decoded.value.timestamp ?? null) : null,
  }
}
