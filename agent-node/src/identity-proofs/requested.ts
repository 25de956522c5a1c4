/**
 * Requested credentials as the controller gives them (`POST /v1/presentation-request`,
 * `identity-proof-request` items): completed and checked against the credential definition's
 * schema before anything is requested, so no requested name is dropped or silently unknown.
 */
import type { Predicate } from '@parley/shared'
import { ClaimsMismatchError, UnknownCredentialDefinitionError } from '../credentials/CredentialTypes.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { RequestedCredential } from './PresentationFlowRecord.ts'

/** One requested credential before completion: `attributes` may be omitted (every one of the schema). */
export interface RequestedCredentialInput {
  credentialDefinitionId: string
  attributes?: string[]
  predicates?: Predicate[]
}

/** The attribute names of the schema behind `credentialDefinitionId` (ours or another issuer's). */
async function schemaAttributes(agent: DidcommAgent, credentialDefinitionId: string): Promise<string[]> {
  const anoncreds = agent.modules.anoncreds
  const { credentialDefinition } = await anoncreds
    .getCredentialDefinition(credentialDefinitionId)
    .catch(() => ({ credentialDefinition: undefined }))
  if (!credentialDefinition) throw new UnknownCredentialDefinitionError(credentialDefinitionId)
  const { schema } = await anoncreds.getSchema(credentialDefinition.schemaId).catch(() => ({ schema: undefined }))
  if (!schema) throw new UnknownCredentialDefinitionError(credentialDefinitionId)
  return schema.attrNames
}

/** Where an entry's attribute and predicate lists sit in the request body, for errors. */
export interface RequestedFields {
  attributes: string
  predicates: string
}

/** The fields of an entry at `prefix` of the body (`requestedCredentials.0`): `<prefix>.attributes`, `<prefix>.predicates`. */
export function requestedFieldsAt(prefix: string): RequestedFields {
  return { attributes: `${prefix}.attributes`, predicates: `${prefix}.predicates` }
}

/**
 * Completes `entry`: `attributes` defaults to every attribute of the schema, unless the entry
 * asks only for predicates (then none is revealed). Every attribute and predicate name must be
 * an attribute of the schema.
 * @param fields where the entry's lists sit in the request body, for errors.
 * @throws UnknownCredentialDefinitionError when the definition or its schema does not resolve;
 *   ClaimsMismatchError naming `fields.attributes` or `<fields.predicates>.<i>.name`.
 */
export async function completeRequested(
  agent: DidcommAgent,
  entry: RequestedCredentialInput,
  fields: RequestedFields,
): Promise<Omit<RequestedCredential, 'id'>> {
  const known = await schemaAttributes(agent, entry.credentialDefinitionId)
  const attributes = entry.attributes ?? (entry.predicates ? [] : known)
  const issues: { field: string; message: string }[] = []
  const unknown = attributes.filter((name) => !known.includes(name))
  if (unknown.length > 0)
    issues.push({
      field: fields.attributes,
      message: `not attributes of this credential type: ${unknown.join(', ')} (it has ${known.join(', ')})`,
    })
  entry.predicates?.forEach((predicate, index) => {
    if (!known.includes(predicate.name))
      issues.push({
        field: `${fields.predicates}.${index}.name`,
        message: `'${predicate.name}' is not an attribute of this credential type (it has ${known.join(', ')})`,
      })
  })
  if (issues.length > 0) throw new ClaimsMismatchError(issues)
  return { credentialDefinitionId: entry.credentialDefinitionId, attributes, ...(entry.predicates ? { predicates: entry.predicates } : {}) }
}
