/**
 * An AnonCreds registry that keeps what it registers in the agent's own storage and resolves
 * from it. Honest about its reach: only the agent that registered an object can resolve it, so
 * it serves an issuer that is also the verifier of its own credentials; a holder elsewhere needs
 * another way to resolve (the public-DID-hosted did:webvh registry, a later issue). Identifiers:
 * `identifiers.ts`. No revocation.
 */
import type {
  AnonCredsRegistry,
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
import { LOCAL_IDENTIFIER, isLocalIssuerId, localObjectId, localObjectKind, type LocalObjectKind } from './identifiers.ts'
import { LocalAnonCredsObjectRecord, localObjectRepository } from './LocalAnonCredsObjectRecord.ts'

const NO_REVOCATION = 'the local AnonCreds registry does not support revocation'

type Stored = { ok: true; id: string } | { ok: false; reason: string }

/** The local registry (method name `parley-local`). */
export class LocalAnonCredsRegistry implements AnonCredsRegistry {
  readonly methodName = 'parley-local'
  readonly supportedIdentifier = LOCAL_IDENTIFIER

  async registerSchema(agentContext: AgentContext, { schema }: RegisterSchemaOptions): Promise<RegisterSchemaReturn> {
    const stored = await this.store(agentContext, 'schema', schema.issuerId, schema)
    return {
      schemaState: stored.ok ? { state: 'finished', schema, schemaId: stored.id } : { state: 'failed', schema, reason: stored.reason },
      schemaMetadata: {},
      registrationMetadata: {},
    }
  }

  async getSchema(agentContext: AgentContext, schemaId: string): Promise<GetSchemaReturn> {
    const found = await this.find(agentContext, 'schema', schemaId)
    return { schemaId, schema: found.object as GetSchemaReturn['schema'], resolutionMetadata: found.metadata, schemaMetadata: {} }
  }

  async registerCredentialDefinition(
    agentContext: AgentContext,
    { credentialDefinition }: RegisterCredentialDefinitionOptions,
  ): Promise<RegisterCredentialDefinitionReturn> {
    const stored = await this.store(agentContext, 'cred-def', credentialDefinition.issuerId, credentialDefinition)
    return {
      credentialDefinitionState: stored.ok
        ? { state: 'finished', credentialDefinition, credentialDefinitionId: stored.id }
        : { state: 'failed', credentialDefinition, reason: stored.reason },
      credentialDefinitionMetadata: {},
      registrationMetadata: {},
    }
  }

  async getCredentialDefinition(agentContext: AgentContext, credentialDefinitionId: string): Promise<GetCredentialDefinitionReturn> {
    const found = await this.find(agentContext, 'cred-def', credentialDefinitionId)
    return {
      credentialDefinitionId,
      credentialDefinition: found.object as GetCredentialDefinitionReturn['credentialDefinition'],
      resolutionMetadata: found.metadata,
      credentialDefinitionMetadata: {},
    }
  }

  async registerRevocationRegistryDefinition(): Promise<RegisterRevocationRegistryDefinitionReturn> {
    return { revocationRegistryDefinitionState: { state: 'failed', reason: NO_REVOCATION }, revocationRegistryDefinitionMetadata: {}, registrationMetadata: {} }
  }

  async getRevocationRegistryDefinition(_: AgentContext, revocationRegistryDefinitionId: string): Promise<GetRevocationRegistryDefinitionReturn> {
    return {
      revocationRegistryDefinitionId,
      resolutionMetadata: { error: 'unsupportedAnonCredsMethod', message: NO_REVOCATION },
      revocationRegistryDefinitionMetadata: {},
    }
  }

  async registerRevocationStatusList(): Promise<RegisterRevocationStatusListReturn> {
    return { revocationStatusListState: { state: 'failed', reason: NO_REVOCATION }, revocationStatusListMetadata: {}, registrationMetadata: {} }
  }

  async getRevocationStatusList(): Promise<GetRevocationStatusListReturn> {
    return { resolutionMetadata: { error: 'unsupportedAnonCredsMethod', message: NO_REVOCATION }, revocationStatusListMetadata: {} }
  }

  /** Stores `object` under its content id; registering an identical object again is a no-op. */
  private async store(agentContext: AgentContext, kind: LocalObjectKind, issuerId: string, object: object): Promise<Stored> {
    if (!isLocalIssuerId(issuerId)) return { ok: false, reason: `not a local issuer id (parley-local:<name>): ${issuerId}` }
    const id = localObjectId(issuerId, kind, object)
    const repository = localObjectRepository(agentContext)
    if (!(await repository.findById(agentContext, id))) {
      await repository.save(agentContext, new LocalAnonCredsObjectRecord({ id, kind, issuerId, object: { ...object } }))
    }
    return { ok: true, id }
  }

  private async find(agentContext: AgentContext, kind: LocalObjectKind, id: string) {
    if (localObjectKind(id) !== kind) {
      return { object: undefined, metadata: { error: 'invalid', message: `not a local ${kind} id: ${id}` } }
    }
    const record = await localObjectRepository(agentContext).findById(agentContext, id)
    if (!record) return { object: undefined, metadata: { error: 'notFound', message: `${id} is not in this agent's storage` } }
    return { object: record.object, metadata: {} }
  }
}
