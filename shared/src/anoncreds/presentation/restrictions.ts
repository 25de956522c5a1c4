import { normalizeAttributeName } from '../encoding/index.ts'
import type { CredentialDefinition } from '../objects/credential-definition.ts'
import { type Query, queryTagNames } from '../objects/query.ts'
import type { Schema } from '../objects/schema.ts'

/** What restrictions are checked against (anoncreds-rs `verifier::Filter`). */
export type Filter = {
  schema_id: string
  schema_issuer_id: string
  schema_name: string
  schema_version: string
  issuer_id: string
  cred_def_id: string
}

/** Thrown when a presentation fails a check (anoncreds-rs `ProofRejected` and friends). */
export class PresentationRejectedError extends Error {
  override name = 'PresentationRejectedError'
}

/** Thrown when the verifier's own inputs are missing something (anoncreds-rs `Input` errors). */
export class PresentationInputError extends Error {
  override name = 'PresentationInputError'
}

const LEGACY_DID = /^[1-9A-HJ-NP-Za-km-z]{21,22}$/
const INTERNAL_TAG = /^attr::([^:]+)::(value|marker)$/

/**
 * The filter of a credential: its schema and cred def ids, the schema's name, version and issuer,
 * the cred def's issuer. Throws `PresentationInputError` when the schema or cred def was not given.
 */
export function gatherFilter(
  schemaId: string,
  credDefId: string,
  schemas: ReadonlyMap<string, Schema>,
  credDefs: ReadonlyMap<string, CredentialDefinition>,
): Filter {
  const schema = schemas.get(schemaId)
  if (!schema) throw new PresentationInputError(`schema_id ${schemaId} could not be found in the schemas`)
  const credDef = credDefs.get(credDefId)
  if (!credDef) throw new PresentationInputError(`cred_def_id ${credDefId} could not be found in the cred_defs`)
  return {
    schema_id: schemaId,
    schema_issuer_id: schema.issuerId,
    schema_name: schema.name,
    schema_version: schema.version,
    issuer_id: credDef.issuerId,
    cred_def_id: credDefId,
  }
}

function checkField(tag: string, actual: string, expected: string): void {
  if ((tag === 'schema_issuer_did' || tag === 'issuer_did') && !LEGACY_DID.test(actual)) {
    throw new PresentationRejectedError(`"${tag}" value is a legacy identifier tag and therefore only legacy identifiers can be used`)
  }
  if (actual !== expected)
    throw new PresentationRejectedError(`"${tag}" values are different: expected: "${expected}", actual: "${actual}"`)
}

/** anoncreds-rs `process_filter`: one `tag = value` condition; throws when it does not hold. */
function checkFilter(values: ReadonlyMap<string, string | null>, tag: string, value: string, filter: Filter): void {
  switch (tag) {
    case 'schema_id':
      checkField(tag, filter.schema_id, value)
      return
    case 'schema_issuer_did':
    case 'schema_issuer_id':
      checkField(tag, filter.schema_issuer_id, value)
      return
    case 'schema_name':
      checkField(tag, filter.schema_name, value)
      return
    case 'schema_version':
      checkField(tag, filter.schema_version, value)
      return
    case 'cred_def_id':
      checkField(tag, filter.cred_def_id, value)
      return
    case 'issuer_did':
    case 'issuer_id':
      checkField(tag, filter.issuer_id, value)
      return
  }
  const match = INTERNAL_TAG.exec(tag)
  if (match && values.has(match[1] as string)) {
    const revealed = values.get(match[1] as string)
    if (revealed !== null && revealed !== undefined && revealed !== value) {
      throw new PresentationRejectedError(`"${tag}" values are different: expected: "${value}", actual: "${revealed}"`)
    }
    return
  }
  if (tag.startsWith('attr::') && tag.endsWith('::marker')) return
  throw new PresentationRejectedError('Unknown Filter Type')
}

function holds(fn: () => void): boolean {
  try {
    fn()
    return true
  } catch (error) {
    if (error instanceof PresentationRejectedError) return false
    throw error
  }
}

/**
 * anoncreds-rs `process_operator`: checks a restriction query against a credential's filter and
 * the raw values revealed from it (`attr::<name>::value` tags compare raw values; attribute names
 * as requested). Supports `eq`, `neq`, `in`, `and`, `or`, `not`; other operators are rejected.
 * Throws `PresentationRejectedError` when the query does not hold.
 */
export function checkRestriction(values: ReadonlyMap<string, string | null>, query: Query, filter: Filter): void {
  switch (query.op) {
    case 'eq':
      checkFilter(values, query.name, query.value, filter)
      return
    case 'neq':
      if (holds(() => checkFilter(values, query.name, query.value, filter))) {
        throw new PresentationRejectedError(`$neq operator validation failed for tag: "${query.name}", value: "${query.value}"`)
      }
      return
    case 'in':
      if (!query.values.some((v) => holds(() => checkFilter(values, query.name, v, filter)))) {
        throw new PresentationRejectedError(`$in operator validation failed for tag: "${query.name}"`)
      }
      return
    case 'and':
      for (const op of query.operators) checkRestriction(values, op, filter)
      return
    case 'or':
      if (!query.operators.some((op) => holds(() => checkRestriction(values, op, filter)))) {
        throw new PresentationRejectedError('$or operator validation failed. All conditions were failed.')
      }
      return
    case 'not':
      if (holds(() => checkRestriction(values, query.operator, filter))) {
        throw new PresentationRejectedError('$not operator validation failed. All conditions were passed.')
      }
      return
    default:
      throw new PresentationRejectedError('unsupported operator')
  }
}

/**
 * Rejects a request that restricts on both the new and the legacy name of the same field
 * (`issuer_id` and `issuer_did`, `schema_issuer_id` and `schema_issuer_did`), as anoncreds-rs does.
 */
export function checkRestrictionTagConflicts(queries: readonly Query[]): void {
  const tags = new Set(queries.flatMap(queryTagNames))
  if (tags.has('issuer_id') && tags.has('issuer_did')) {
    throw new PresentationRejectedError('Presentation request contains restriction for `issuer_id` (new) and `issuer_did` (legacy)')
  }
  if (tags.has('schema_issuer_id') && tags.has('schema_issuer_did')) {
    throw new PresentationRejectedError(
      'Presentation request contains both restrictions for `schema_issuer_id` (new) and `schema_issuer_did` (legacy)',
    )
  }
}

/** Finds `name` among `keys` the way anoncreds-rs compares attribute names (spaces removed, lowercase). */
export function findAttribute<T>(record: Record<string, T>, name: string): [string, T] | undefined {
  const wanted = normalizeAttributeName(name)
  for (const [key, value] of Object.entries(record)) {
    if (normalizeAttributeName(key) === wanted) return [key, value]
  }
  return undefined
}
