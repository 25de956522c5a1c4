import { z } from 'zod'
import { credentialPrimaryPublicKey, credentialPrivateKey, credentialRevocationPublicKey, keyCorrectnessProof } from './cl.ts'
import { parseObjectJson } from './parse.ts'
import { identifier, skipNone } from './primitives.ts'

/**
 * Credential definition (`src/data_types/cred_def.rs`):
 * `{ schemaId, type: 'CL', tag, value: { primary, revocation? }, issuerId }`.
 */
export const credentialDefinitionSchema = z.object({
  schemaId: identifier,
  type: z.literal('CL'),
  tag: z.string(),
  value: z.object({
    primary: credentialPrimaryPublicKey,
    revocation: skipNone(credentialRevocationPublicKey),
  }),
  issuerId: identifier,
})
/** A credential definition. */
export type CredentialDefinition = z.output<typeof credentialDefinitionSchema>

/** Credential definition private part: `{ value: { p_key: { p, q }, r_key } }`. */
export const credentialDefinitionPrivateSchema = z.object({ value: credentialPrivateKey })
/** The issuer's private key of a credential definition. */
export type CredentialDefinitionPrivate = z.output<typeof credentialDefinitionPrivateSchema>

/** Key-correctness proof (serde-transparent over the CL type): `{ c, xz_cap, xr_cap }`. */
export const keyCorrectnessProofSchema = keyCorrectnessProof
/** The key-correctness proof of a credential definition. */
export type KeyCorrectnessProofObject = z.output<typeof keyCorrectnessProofSchema>

/** Parses a credential definition; throws `AnoncredsError` (code 1) naming the bad field. */
export function credentialDefinitionFromJson(json: string): CredentialDefinition {
  return parseObjectJson(credentialDefinitionSchema, json, 'CredentialDefinition')
}

/** Parses a credential definition private key; throws `AnoncredsError` (code 1). */
export function credentialDefinitionPrivateFromJson(json: string): CredentialDefinitionPrivate {
  return parseObjectJson(credentialDefinitionPrivateSchema, json, 'CredentialDefinitionPrivate')
}

/** Parses a key-correctness proof; throws `AnoncredsError` (code 1). */
export function keyCorrectnessProofFromJson(json: string): KeyCorrectnessProofObject {
  return parseObjectJson(keyCorrectnessProofSchema, json, 'KeyCorrectnessProof')
}
