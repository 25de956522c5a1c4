import { z } from 'zod'
import { blindedCredentialSecrets, blindedCredentialSecretsCorrectnessProof, credentialSecretsBlindingFactors } from './cl.ts'
import { parseObjectJson } from './parse.ts'
import { identifier, nonce, skipNone } from './primitives.ts'

/**
 * Credential request (`src/data_types/cred_request.rs`):
 * `{ entropy?, prover_did?, cred_def_id, blinded_ms, blinded_ms_correctness_proof, nonce }`.
 * Exactly one of `entropy` / `prover_did` is required.
 */
export const credentialRequestSchema = z
  .object({
    entropy: skipNone(z.string()),
    prover_did: skipNone(z.string()),
    cred_def_id: identifier,
    blinded_ms: blindedCredentialSecrets,
    blinded_ms_correctness_proof: blindedCredentialSecretsCorrectnessProof,
    nonce,
  })
  .refine((request) => !(request.entropy !== undefined && request.prover_did !== undefined), {
    message: 'Prover did and entropy must not both be supplied',
    path: ['entropy'],
  })
  .refine((request) => request.entropy !== undefined || request.prover_did !== undefined, {
    message: 'Entropy or prover did must be supplied',
    path: ['entropy'],
  })
/** A credential request. */
export type CredentialRequest = z.output<typeof credentialRequestSchema>

/**
 * Credential request metadata, kept by the holder:
 * `{ link_secret_blinding_data: { v_prime, vr_prime }, nonce, link_secret_name }`.
 */
export const credentialRequestMetadataSchema = z.object({
  link_secret_blinding_data: credentialSecretsBlindingFactors,
  nonce,
  link_secret_name: z.string(),
})
/** The holder's metadata of a credential request. */
export type CredentialRequestMetadata = z.output<typeof credentialRequestMetadataSchema>

/** Parses a credential request; throws `AnoncredsError` (code 1) naming the bad field. */
export function credentialRequestFromJson(json: string): CredentialRequest {
  return parseObjectJson(credentialRequestSchema, json, 'CredentialRequest')
}

/** Parses credential request metadata; throws `AnoncredsError` (code 1). */
export function credentialRequestMetadataFromJson(json: string): CredentialRequestMetadata {
  return parseObjectJson(credentialRequestMetadataSchema, json, 'CredentialRequestMetadata')
}
