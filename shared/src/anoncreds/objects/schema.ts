import { z } from 'zod'
import { parseObjectJson } from './parse.ts'
import { identifier } from './primitives.ts'

/**
 * AnonCreds schema (`src/data_types/schema.rs`): `{ name, version, attrNames, issuerId }`.
 * `attrNames` must be non-empty, unique and at most 125 names.
 */
export const schemaSchema = z.object({
  name: z.string(),
  version: z.string(),
  attrNames: z
    .array(z.string())
    .min(1, 'Empty list of Schema attributes has been passed')
    .max(125, 'The number of Schema attributes cannot be greater than 125')
    .refine((names) => new Set(names).size === names.length, 'Attributes inside the schema must be unique'),
  issuerId: identifier,
})
/** An AnonCreds schema. */
export type Schema = z.output<typeof schemaSchema>

/** Parses schema JSON; throws `AnoncredsError` (code 1) naming the bad field. */
export function schemaFromJson(json: string): Schema {
  return parseObjectJson(schemaSchema, json, 'Schema')
}
