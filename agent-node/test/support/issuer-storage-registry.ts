/**
 * For tests only: a read-only AnonCreds registry that resolves local (`parley-local:`) objects
 * from ANOTHER agent's storage in the same process, so a wallet peer can resolve what agent-node
 * registered. In production a holder has no such access; the public did:webvh registry (a later
 * issue) is how it will resolve.
 */
import type {
  AnonCredsRegistry,
  GetCredentialDefinitionReturn,
  GetRevocationRegistryDefinitionReturn,
  GetRevocationStatusListReturn,
  GetSchemaReturn,
  RegisterCredentialDefinitionReturn,
  RegisterRevocationRegistryDefinitionReturn,
  RegisterRevocationStatusListReturn,
  RegisterSchemaReturn,
} from '@credo-ts/anoncreds'
import type { AgentContext } from '@credo-ts/core'
import { LOCAL_IDENTIFIER, LocalAnonCredsRegistry } from '../../src/anoncreds/index.ts'

const READ_ONLY = 'the issuer-storage registry only resolves'

/** Resolves through `issuerContext()` (the issuer agent's context) with the local registry. */
export class IssuerStorageRegistry implements AnonCredsRegistry {
  readonly methodName = 'parley-local'
  readonly supportedIdentifier = LOCAL_IDENTIFIER
  private readonly local = new LocalAnonCredsRegistry()

  constructor(private readonly issuerContext: () => AgentContext) {}

  getSchema(_: AgentContext, schemaId: string): Promise<GetSchemaReturn> {
    return this.local.getSchema(this.issuerContext(), schemaId)
  }

  getCredentialDefinition(_: AgentContext, credentialDefinitionId: string): Promise<GetCredentialDefinitionReturn> {
    return this.local.getCredentialDefinition(this.issuerContext(), credentialDefinitionId)
  }

  getRevocationRegistryDefinition(_: AgentContext, id: string): Promise<GetRevocationRegistryDefinitionReturn> {
    return this.local.getRevocationRegistryDefinition(this.issuerContext(), id)
  }

  getRevocationStatusList(): Promise<GetRevocationStatusListReturn> {
    return this.local.getRevocationStatusList()
  }

  async registerSchema(): Promise<RegisterSchemaReturn> {
    return { schemaState: { state: 'failed', reason: READ_ONLY }, schemaMetadata: {}, registrationMetadata: {} }
  }

  async registerCredentialDefinition(): Promise<RegisterCredentialDefinitionReturn> {
    return { credentialDefinitionState: { state: 'failed', reason: READ_ONLY }, credentialDefinitionMetadata: {}, registrationMetadata: {} }
  }

  async registerRevocationRegistryDefinition(): Promise<RegisterRevocationRegistryDefinitionReturn> {
    return { revocationRegistryDefinitionState: { state: 'failed', reason: READ_ONLY }, revocationRegistryDefinitionMetadata: {}, registrationMetadata: {} }
  }

  async registerRevocationStatusList(): Promise<RegisterRevocationStatusListReturn> {
    return { revocationStatusListState: { state: 'failed', reason: READ_ONLY }, revocationStatusListMetadata: {}, registrationMetadata: {} }
  }
}
