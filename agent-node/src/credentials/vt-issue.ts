/**
 * `POST /vt/issue-credential` with `format: anoncreds` (spec "Issue credential (W3C-style)";
 * shape after 2060.io's service agent): the credential type comes from a JSON Schema Credential
 * and the credential is offered like `POST /v1/credential-offer`, through an invitation.
 *
 * The type is the credential type named by the JSON Schema Credential's URL, at a version
 * derived from its attribute names, so the same schema maps to one credential definition and a
 * changed schema to a new one. Claims are `{ id, <attribute>: value }`; a value given as an array
 * of strings is stored as its JSON text (AnonCreds values are strings).
 */
import { createHash } from 'node:crypto'
import type { Claim } from '@parley/shared'
import type { AgentNodeConfig } from '../config/index.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { unsafeUrlAsField } from '../errors/index.ts'
import type { OutboundGuard } from '../http/outbound-guard.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'
import type { CredentialTypes } from './CredentialTypes.ts'
import { readJsonSchemaCredential } from './json-schema-credential.ts'
import { createCredentialOfferInvitation, type CredentialOfferInvitation } from './offers.ts'

export interface VtIssueDeps {
  agent: DidcommAgent
  config: AgentNodeConfig
  credentialTypes: CredentialTypes
  shortUrls: ShortUrls
  guard: OutboundGuard
}

/**
 * Creates (or finds) the type of `jsonSchemaCredential` and offers a credential with `claims`.
 * @throws InvalidFieldError naming `jsonSchemaCredential` for a URL the agent may not call;
 *   JsonSchemaCredentialError (the schema documents), ClaimsMismatchError.
 */
export async function issueFromJsonSchemaCredential(
  deps: VtIssueDeps,
  jsonSchemaCredential: string,
  claims: Record<string, string | string[]>,
): Promise<CredentialOfferInvitation> {
  const { attributes } = await readJsonSchemaCredential(deps.guard, jsonSchemaCredential).catch(unsafeUrlAsField('jsonSchemaCredential'))
  const version = createHash('sha256').update(attributes.join('\n')).digest('hex').slice(0, 16)
  const { type } = await deps.credentialTypes.create({ name: jsonSchemaCredential, version, attributes })
  const values: Claim[] = Object.entries(claims).map(([name, value]) => ({
    name,
    value: Array.isArray(value) ? JSON.stringify(value) : value,
  }))
  return createCredentialOfferInvitation(deps, type.credentialDefinitionId, values)
}
