import { z } from 'zod'
import { keyCorrectnessProof } from './cl.ts'
import { parseObjectJson } from './parse.ts'
import { identifier, nonce, skipNone } from './primitives.ts'

/**
 * Credential offer (`src/data_types/cred_offer.rs`):
 * `{ schema_id, cred_def_id, key_correctness_proof, nonce, method_name? }`.
 */
export const credentialOfferSchema = z.object({
  schema_id: identifier,
  cred_def_id: identifier,
  key_correctness_proof: keyCorrectnessProof,
  nonce,
  method_name: skipNone(z.string()),
})
/** A credential offer. */
export type CredentialOffer = z.output<typeof credentialOfferSchema>

/** Parses a credential offer; throws `AnoncredsError` (code 1) naming the bad field. */
export function credentialOfferFromJson(json: string): CredentialOffer {
  return parseObjectJson(credentialOfferSchema, json, 'CredentialOffer')
}
