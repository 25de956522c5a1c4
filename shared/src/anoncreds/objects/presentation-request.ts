import { z } from 'zod'
import { parseObjectJson, sortKeysDeep } from './parse.ts'
import { nonce } from './primitives.ts'
import { parseQuery, queryToJson } from './query.ts'

/** `{ from?, to? }` timestamps of a non-revocation interval. */
export const nonRevokedIntervalSchema = z.object({
  from: z
    .number()
    .int()
    .nonnegative()
    .nullish()
    .transform((v) => v ?? null),
  to: z
    .number()
    .int()
    .nonnegative()
    .nullish()
    .transform((v) => v ?? null),
})

/**
 * A restriction query: parsed like anoncreds-rs (objects, or the legacy array form = `$or`) and
 * kept as the normalised JSON anoncreds-rs writes back (`queryToJson`).
 */
export const restrictionSchema = z.unknown().transform((value, ctx) => {
  try {
    return queryToJson(parseQuery(value))
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message })
    return z.NEVER
  }
})

/** Requested attribute: `{ name? | names?, restrictions, non_revoked }` (exactly one of name / names). */
export const attributeInfoSchema = z
  .object({
    name: z
      .string()
      .nullish()
      .transform((v) => v ?? undefined),
    names: z
      .array(z.string())
      .nullish()
      .transform((v) => v ?? undefined),
    restrictions: restrictionSchema.nullish().transform((v) => v ?? null),
    non_revoked: nonRevokedIntervalSchema.nullish().transform((v) => v ?? null),
  })
  .refine((info) => Boolean(info.name) !== Boolean(info.names && info.names.length > 0), {
    message: 'requested attribute must have exactly one of a non-empty `name` or `names`',
    path: ['name'],
  })
/** One requested attribute. */
export type AttributeInfo = z.output<typeof attributeInfoSchema>

/** Predicate types of presentation requests. */
export const predicateTypeSchema = z.enum(['>=', '<=', '>', '<'])
/** `>=`, `<=`, `>` or `<`. */
export type PredicateType = z.output<typeof predicateTypeSchema>

/** Requested predicate: `{ name, p_type, p_value (i32), restrictions, non_revoked }`. */
export const predicateInfoSchema = z.object({
  name: z.string().min(1, 'there is empty requested predicate'),
  p_type: predicateTypeSchema,
  p_value: z.number().int().min(-2147483648).max(2147483647),
  restrictions: restrictionSchema.nullish().transform((v) => v ?? null),
  non_revoked: nonRevokedIntervalSchema.nullish().transform((v) => v ?? null),
})
/** One requested predicate. */
export type PredicateInfo = z.output<typeof predicateInfoSchema>

/**
 * Presentation request (`src/data_types/pres_request.rs`): `{ nonce, name, version,
 * requested_attributes, requested_predicates, non_revoked, ver }`; `ver` is `'1.0'` (default) or
 * `'2.0'`. At least one attribute or predicate must be requested.
 */
export const presentationRequestSchema = z
  .object({
    nonce,
    name: z.string(),
    version: z.string(),
    requested_attributes: z.record(z.string(), attributeInfoSchema).default({}),
    requested_predicates: z.record(z.string(), predicateInfoSchema).default({}),
    non_revoked: nonRevokedIntervalSchema.nullish().transform((v) => v ?? null),
    ver: z
      .enum(['1.0', '2.0'])
      .nullish()
      .transform((v) => v ?? '1.0'),
  })
  .refine((req) => Object.keys(req.requested_attributes).length > 0 || Object.keys(req.requested_predicates).length > 0, {
    message: 'both `requested_attributes` and `requested_predicates` are empty',
    path: ['requested_attributes'],
  })
/** A presentation request. */
export type PresentationRequest = z.output<typeof presentationRequestSchema>

/** Parses a presentation request; throws `AnoncredsError` (code 1) naming the bad field. */
export function presentationRequestFromJson(json: string): PresentationRequest {
  return parseObjectJson(presentationRequestSchema, json, 'PresentationRequest')
}

/**
 * Serialises a presentation request as anoncreds-rs does: through `serde_json::Value`, so every
 * object's keys come out sorted, with `ver` added.
 */
export function presentationRequestToJson(request: PresentationRequest): string {
  return JSON.stringify(sortKeysDeep(request))
}
