import { z } from 'zod'
import { clProof } from './cl.ts'
import { parseObjectJson } from './parse.ts'
import { decimal, identifier, nullable } from './primitives.ts'

const subProofIndex = z.number().int().nonnegative()

/** `{ sub_proof_index, raw, encoded }` of a revealed attribute. */
export const revealedAttributeInfoSchema = z.object({ sub_proof_index: subProofIndex, raw: z.string(), encoded: decimal })
/** `{ sub_proof_index, values: { name: { raw, encoded } } }` of a revealed attribute group. */
export const revealedAttributeGroupInfoSchema = z.object({
  sub_proof_index: subProofIndex,
  values: z.record(z.string(), z.object({ raw: z.string(), encoded: decimal })),
})
/** `{ sub_proof_index }`. */
export const subProofReferentSchema = z.object({ sub_proof_index: subProofIndex })

/**
 * `RequestedProof` (`src/data_types/presentation.rs`): `revealed_attrs`, `revealed_attr_groups`
 * (omitted when empty), `self_attested_attrs`, `unrevealed_attrs`, `predicates`.
 */
export const requestedProofSchema = z.object({
  revealed_attrs: z.record(z.string(), revealedAttributeInfoSchema),
  revealed_attr_groups: z
    .record(z.string(), revealedAttributeGroupInfoSchema)
    .optional()
    .transform((v) => (v && Object.keys(v).length > 0 ? v : undefined)),
  self_attested_attrs: z.record(z.string(), z.string()).default({}),
  unrevealed_attrs: z.record(z.string(), subProofReferentSchema).default({}),
  predicates: z.record(z.string(), subProofReferentSchema).default({}),
})
/** The requested-proof part of a presentation. */
export type RequestedProof = z.output<typeof requestedProofSchema>

/** `Identifier`: `{ schema_id, cred_def_id, rev_reg_id, timestamp }` (nulls written). */
export const identifierSchema = z.object({
  schema_id: identifier,
  cred_def_id: identifier,
  rev_reg_id: nullable(identifier),
  timestamp: nullable(z.number().int().nonnegative()),
})
/** Which schema / cred def (and registry, timestamp) a sub-proof is about. */
export type PresentationIdentifier = z.output<typeof identifierSchema>

/** Legacy presentation: `{ proof, requested_proof, identifiers }`. */
export const presentationSchema = z.object({
  proof: clProof,
  requested_proof: requestedProofSchema,
  identifiers: z.array(identifierSchema),
})
/** A legacy AnonCreds presentation. */
export type Presentation = z.output<typeof presentationSchema>

/** Parses a presentation; throws `AnoncredsError` (code 1) naming the bad field. */
export function presentationFromJson(json: string): Presentation {
  return parseObjectJson(presentationSchema, json, 'Presentation')
}
