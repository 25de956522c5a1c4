import { z } from 'zod'
import { credentialSignature, revocationRegistry, signatureCorrectnessProof, witness } from './cl.ts'
import { parseObjectJson } from './parse.ts'
import { decimal, identifier, nullable } from './primitives.ts'

/** One attribute of a credential: `{ raw, encoded }`. */
export const attributeValuesSchema = z.object({ raw: z.string(), encoded: decimal })
/** Raw and encoded value of one attribute. */
export type AttributeValues = z.output<typeof attributeValuesSchema>

/**
 * Legacy AnonCreds credential (`src/data_types/credential.rs`):
 * `{ schema_id, cred_def_id, rev_reg_id, values, signature, signature_correctness_proof, rev_reg, witness }`,
 * the optional fields written as `null`. `values` must not be empty.
 */
export const credentialSchema = z.object({
  schema_id: identifier,
  cred_def_id: identifier,
  rev_reg_id: nullable(identifier),
  values: z
    .record(z.string(), attributeValuesSchema)
    .refine((values) => Object.keys(values).length > 0, 'Credential validation failed: `values` is empty'),
  signature: credentialSignature,
  signature_correctness_proof: signatureCorrectnessProof,
  rev_reg: nullable(revocationRegistry),
  witness: nullable(witness),
})
/** A legacy AnonCreds credential. */
export type Credential = z.output<typeof credentialSchema>

/** Parses a credential; throws `AnoncredsError` (code 1) naming the bad field. */
export function credentialFromJson(json: string): Credential {
  return parseObjectJson(credentialSchema, json, 'Credential')
}
