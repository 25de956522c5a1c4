/**
 * The AnonCreds registry of did:web and did:webvh issuers, after 2060.io's did:web AnonCreds
 * method (identifiers: `identifiers.ts`). agent-node and the wallet peer both use it:
 *
 * - register (issuer side): the issuer id must be this agent's public DID (`did/`); the object is
 *   stored in the agent's storage under its content-derived id and the public interface serves it
 *   at `<anoncreds service endpoint><relativeRef>` (`routes.ts`). Registering the same object
 *   again returns the same id.
 * - resolve (anyone): an object this agent published is read from its storage; any other is
 *   fetched over HTTP: resolve the issuer DID (`did/resolve.ts`), take the service the id selects,
 *   GET `<serviceEndpoint><relativeRef>`, check the answer's shape (zod), that its content hashes
 *   to the id and that its `issuerId` is the DID.
 *
 * Failures come back in `resolutionMetadata` (`notFound`, `invalid`) or as a `failed`
 * registration state, never as exceptions. Revocation is not supported yet.
 */
import type {
  AnonCredsCredentialDefinition,
  AnonCredsRegistry,
  AnonCredsSchema,
  GetCredentialDefinitionReturn,
  GetRevocationRegistryDefinitionReturn,
  GetRevocationStatusListReturn,
  GetSchemaReturn,
  RegisterCredentialDefinitionOptions,
  RegisterCredentialDefinitionReturn,
  RegisterRevocationRegistryDefinitionReturn,
  RegisterRevocationStatusListReturn,
  RegisterSchemaOptions,
  RegisterSchemaReturn,
} from '@credo-ts/anoncreds'
import type { AgentContext } from '@credo-ts/core'
import { z } from 'zod'
import { isLoopbackHost } from '../did/identifier.ts'
import { findPublicDid } from '../did/PublicDidService.ts'
import { DidResolutionError, get, parseJson, resolveDidDocument, type ResolutionFetch } from '../did/resolve.ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { AnonCredsObjectRecord } from './AnonCredsObjectRecord.ts'
import {
  DID_WEB_ANONCREDS_IDENTIFIER,
  anonCredsObjectId,
  contentId,
  parseAnonCredsObjectId,
  type AnonCredsObjectKind,
} from './identifiers.ts'

const NO_REVOCATION = 'revocation is not supported yet'

const SchemaShape = z.looseObject({ issuerId: z.string(), name: z.string(), version: z.string(), attrNames: z.array(z.string()).min(1) })

const CredentialDefinitionShape = z.looseObject({
  issuerId: z.string(),
  schemaId: z.string(),
  type: z.literal('CL'),
  tag: z.string(),
  value: z.looseObject({ primary: z.record(z.string(), z.unknown()), revocation: z.unknown().optional() }),
})

/** The body the AnonCreds service answers with (2060.io's "AnonCreds Object Resolution"). */
const ObjectResolution = z.object({
  resource: z.record(z.string(), z.unknown()),
  resourceMetadata: z.record(z.string(), z.unknown()).optional(),
})

type Resolved<T> = { object: T; metadata: Record<string, unknown> } | { error: 'notFound' | 'invalid'; message: string }
type Published = { ok: true; id: string } | { ok: false; reason: string }

export class DidWebAnonCredsRegistry implements AnonCredsRegistry {
  readonly methodName = 'web'
  readonly supportedIdentifier = DID_WEB_ANONCREDS_IDENTIFIER

  /** @param fetch what resolutions fetch with (agent-node: its outbound guard's; default the global one) */
  constructor(private readonly fetch: ResolutionFetch = globalThis.fetch) {}

  async registerSchema(agentContext: AgentContext, { schema }: RegisterSchemaOptions): Promise<RegisterSchemaReturn> {
    const published = await publish(agentContext, 'schema', schema.issuerId, schema)
    return {
      schemaState: published.ok
        ? { state: 'finished', schema, schemaId: published.id }
        : { state: 'failed', schema, reason: published.reason },
      schemaMetadata: {},
      registrationMetadata: {},
    }
  }

  async getSchema(agentContext: AgentContext, schemaId: string): Promise<GetSchemaReturn> {
    const found = await resolveObject(agentContext, this.fetch, 'schema', schemaId, SchemaShape)
    if ('error' in found) return { schemaId, resolutionMetadata: { error: found.error, message: found.message }, schemaMetadata: {} }
    return { schemaId, schema: found.object as AnonCredsSchema, resolutionMetadata: {}, schemaMetadata: found.metadata }
  }

  async registerCredentialDefinition(
    agentContext: AgentContext,
    { credentialDefinition }: RegisterCredentialDefinitionOptions,
  ): Promise<RegisterCredentialDefinitionReturn> {
    const published = await publish(agentContext, 'credDef', credentialDefinition.issuerId, credentialDefinition)
    return {
      credentialDefinitionState: published.ok
        ? { state: 'finished', credentialDefinition, credentialDefinitionId: published.id }
        : { state: 'failed', credentialDefinition, reason: published.reason },
      credentialDefinitionMetadata: {},
      registrationMetadata: {},
    }
  }

  async getCredentialDefinition(agentContext: AgentContext, credentialDefinitionId: string): Promise<GetCredentialDefinitionReturn> {
    const found = await resolveObject(agentContext, this.fetch, 'credDef', credentialDefinitionId, CredentialDefinitionShape)
    if ('error' in found) {
      return {
        credentialDefinitionId,
        resolutionMetadata: { error: found.error, message: found.message },
        credentialDefinitionMetadata: {},
      }
    }
    return {
      credentialDefinitionId,
      credentialDefinition: found.object as AnonCredsCredentialDefinition,
      resolutionMetadata: {},
      credentialDefinitionMetadata: found.metadata,
    }
  }

  async registerRevocationRegistryDefinition(): Promise<RegisterRevocationRegistryDefinitionReturn> {
    return {
      revocationRegistryDefinitionState: { state: 'failed', reason: NO_REVOCATION },
      revocationRegistryDefinitionMetadata: {},
      registrationMetadata: {},
    }
  }

  async getRevocationRegistryDefinition(
    _: AgentContext,
    revocationRegistryDefinitionId: string,
  ): Promise<GetRevocationRegistryDefinitionReturn> {
    return {
      revocationRegistryDefinitionId,
      resolutionMetadata: { error: 'unsupportedAnonCredsMethod', message: NO_REVOCATION },
      revocationRegistryDefinitionMetadata: {},
    }
  }

  async registerRevocationStatusList(): Promise<RegisterRevocationStatusListReturn> {
    return {
      revocationStatusListState: { state: 'failed', reason: NO_REVOCATION },
      revocationStatusListMetadata: {},
      registrationMetadata: {},
    }
  }

  async getRevocationStatusList(): Promise<GetRevocationStatusListReturn> {
    return { resolutionMetadata: { error: 'unsupportedAnonCredsMethod', message: NO_REVOCATION }, revocationStatusListMetadata: {} }
  }
}

/** The object `id` this agent published, from its storage; null when it did not publish it. */
export async function findPublishedObject(agentContext: AgentContext, id: string): Promise<AnonCredsObjectRecord | null> {
  return recordRepository(agentContext, AnonCredsObjectRecord).findById(agentContext, id)
}

/** Stores `object` under its content id, once; only for this agent's own public DID. */
async function publish(agentContext: AgentContext, kind: AnonCredsObjectKind, issuerId: string, object: object): Promise<Published> {
  if (!(await findPublicDid(agentContext, issuerId))) return { ok: false, reason: `${issuerId} is not this agent's public DID` }
  const id = anonCredsObjectId(issuerId, kind, object)
  const repository = recordRepository(agentContext, AnonCredsObjectRecord)
  if (!(await repository.findById(agentContext, id))) {
    await repository.save(agentContext, new AnonCredsObjectRecord({ id, kind, issuerId, object: { ...object } }))
  }
  return { ok: true, id }
}

async function resolveObject<T>(
  agentContext: AgentContext,
  fetch: ResolutionFetch,
  kind: AnonCredsObjectKind,
  id: string,
  shape: z.ZodType<T>,
): Promise<Resolved<T>> {
  const parsed = parseAnonCredsObjectId(id)
  if (!parsed || parsed.kind !== kind) return { error: 'invalid', message: `not a did:web AnonCreds ${kind} id: ${id}` }
  const own = await findPublishedObject(agentContext, id)
  if (own) return { object: own.object as T, metadata: {} }
  try {
    const document = await resolveDidDocument(parsed.did, fetch)
    const service = document.service?.find((s) => s.id === `${parsed.did}#${parsed.service}` || s.id === `#${parsed.service}`)
    const endpoint = Array.isArray(service?.serviceEndpoint) ? service.serviceEndpoint[0] : service?.serviceEndpoint
    if (typeof endpoint !== 'string') return { error: 'invalid', message: `${parsed.did} has no '${parsed.service}' service with a URL` }
    const url = objectUrl(endpoint, parsed.relativeRef)
    const body = ObjectResolution.safeParse(parseJson(await get(url, fetch), url))
    if (!body.success)
      return { error: 'invalid', message: `${url} did not answer an AnonCreds object resolution: ${body.error.issues[0]?.message}` }
    const object = shape.safeParse(body.data.resource)
    if (!object.success) return { error: 'invalid', message: `${url} did not answer a ${kind}: ${object.error.issues[0]?.message}` }
    if (contentId(body.data.resource) !== parsed.objectId)
      return { error: 'invalid', message: `the ${kind} at ${url} does not match its id` }
    if (body.data.resource.issuerId !== parsed.did)
      return { error: 'invalid', message: `the ${kind} at ${url} is not issued by ${parsed.did}` }
    return { object: object.data, metadata: body.data.resourceMetadata ?? {} }
  } catch (error) {
    if (error instanceof DidResolutionError) return { error: error.code, message: error.message }
    throw error
  }
}

/** `<endpoint><relativeRef>`, only over https (http for loopback hosts). @throws DidResolutionError */
function objectUrl(endpoint: string, relativeRef: string): URL {
  let url: URL
  try {
    url = new URL(`${endpoint.replace(/\/+$/, '')}${relativeRef}`)
  } catch {
    throw new DidResolutionError('invalid', `the AnonCreds service endpoint '${endpoint}' is not a URL`)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new DidResolutionError('invalid', `refusing to fetch ${url}: https only (http for loopback hosts)`)
  }
  return url
}
