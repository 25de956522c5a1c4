/**
 * Moving a credential type between installations of the same agent (vs-agent's credential type
 * export and import): the schema, the credential definition, its private part and its
 * key-correctness proof. The private part is the issuer's secret key: the export is as
 * sensitive as the wallet key, and travels only over the private admin interface.
 *
 * An import must be of this agent's own public DID (the objects are published under it, with
 * their content-derived ids, so they resolve again exactly as before); the private records are
 * stored through Credo's repositories, where the agent keeps every other definition's.
 */
import {
  AnonCredsCredentialDefinitionPrivateRecord,
  AnonCredsCredentialDefinitionPrivateRepository,
  AnonCredsCredentialDefinitionRepository,
  AnonCredsKeyCorrectnessProofRecord,
  AnonCredsKeyCorrectnessProofRepository,
  type AnonCredsCredentialDefinition,
  type AnonCredsSchema,
} from '@credo-ts/anoncreds'
import { anonCredsObjectId } from '../anoncreds-registry/identifiers.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { ConflictError, NotFoundError } from '../errors/index.ts'
import { ClaimsMismatchError, oneTypeWriteAtATime } from './CredentialTypes.ts'
import { CredentialTypeRecord } from './CredentialTypeRecord.ts'

/** vs-agent's export format (`ImportCredentialTypeOptions`). */
export interface ExportedCredentialType {
  id: string
  data: {
    name: string
    version: string
    schema: AnonCredsSchema
    credentialDefinition: AnonCredsCredentialDefinition
    credentialDefinitionPrivate: Record<string, unknown>
    keyCorrectnessProof: Record<string, unknown>
  }
}

/** The import names a type this agent already has (conflict). */
export class CredentialTypeExistsError extends ConflictError {
  constructor(readonly credentialDefinitionId: string) {
    super(`credential type '${credentialDefinitionId}' already exists`)
  }
}

/**
 * The import's name and version are those of another type this agent has (conflict naming
 * `data.name` and `data.version`): types are looked up by name and version (`CredentialTypes.create`).
 */
export class CredentialTypeNameExistsError extends ConflictError {
  constructor(
    readonly typeName: string,
    readonly version: string,
    readonly credentialDefinitionId: string,
  ) {
    const message = `credential type '${credentialDefinitionId}' already has name '${typeName}' and version '${version}'`
    super(message, {
      issues: [
        { field: 'data.name', message },
        { field: 'data.version', message },
      ],
    })
  }
}

/** The agent has no credential type of this credential definition id (not found). */
export class UnknownCredentialTypeError extends NotFoundError {
  constructor(readonly credentialDefinitionId: string) {
    super(`no credential type with id '${credentialDefinitionId}'`)
  }
}

const types = (agent: DidcommAgent) => recordRepository(agent.context, CredentialTypeRecord)

/**
 * The export of type `credentialDefinitionId`.
 * @throws UnknownCredentialTypeError when the agent has no such type (or lost its private part).
 */
export async function exportCredentialType(agent: DidcommAgent, credentialDefinitionId: string): Promise<ExportedCredentialType> {
  const type = await types(agent).findSingleByQuery(agent.context, { credentialDefinitionId })
  const { context } = agent
  const definition =
    type &&
    (await agent.dependencyManager
      .resolve(AnonCredsCredentialDefinitionRepository)
      .findByCredentialDefinitionId(context, credentialDefinitionId))
  const secret =
    type &&
    (await agent.dependencyManager
      .resolve(AnonCredsCredentialDefinitionPrivateRepository)
      .findByCredentialDefinitionId(context, credentialDefinitionId))
  const proof =
    type &&
    (await agent.dependencyManager
      .resolve(AnonCredsKeyCorrectnessProofRepository)
      .findByCredentialDefinitionId(context, credentialDefinitionId))
  const { schema } = type ? await agent.modules.anoncreds.getSchema(type.schemaId) : { schema: undefined }
  if (!type || !definition || !secret || !proof || !schema) throw new UnknownCredentialTypeError(credentialDefinitionId)
  return {
    id: credentialDefinitionId,
    data: {
      name: type.name,
      version: type.version,
      schema,
      credentialDefinition: definition.credentialDefinition,
      credentialDefinitionPrivate: secret.value,
      keyCorrectnessProof: proof.value,
    },
  }
}

const refuse = (field: string, message: string) => new ClaimsMismatchError([{ field, message }])

/**
 * Imports `exported` as a credential type of this agent (issuer `issuerId`, its public DID),
 * after every creation or import started before it (`oneTypeWriteAtATime`).
 * @throws ClaimsMismatchError naming the field when the objects are not this agent's or do not
 *   match their ids; CredentialTypeExistsError when the type exists; CredentialTypeNameExistsError
 *   when another type has its name and version.
 */
export async function importCredentialType(
  agent: DidcommAgent,
  issuerId: string,
  exported: ExportedCredentialType,
): Promise<CredentialTypeRecord> {
  const { id, data } = exported
  if (data.credentialDefinition.issuerId !== issuerId)
    throw refuse('data.credentialDefinition.issuerId', `must be this agent's public DID ${issuerId}`)
  if (data.schema.issuerId !== issuerId) throw refuse('data.schema.issuerId', `must be this agent's public DID ${issuerId}`)
  if (anonCredsObjectId(issuerId, 'schema', data.schema) !== data.credentialDefinition.schemaId)
    throw refuse('data.credentialDefinition.schemaId', 'is not the id of the schema given')
  if (anonCredsObjectId(issuerId, 'credDef', data.credentialDefinition) !== id)
    throw refuse('id', 'is not the id of the credential definition given')
  return oneTypeWriteAtATime(agent, () => addImported(agent, exported))
}

/** `importCredentialType` once the objects are checked: refuses a clash, publishes, stores. */
async function addImported(agent: DidcommAgent, { id, data }: ExportedCredentialType): Promise<CredentialTypeRecord> {
  if (await types(agent).findSingleByQuery(agent.context, { credentialDefinitionId: id })) throw new CredentialTypeExistsError(id)
  const named = await types(agent).findByQuery(agent.context, { name: data.name, version: data.version }, { limit: 1 })
  if (named[0]) throw new CredentialTypeNameExistsError(data.name, data.version, named[0].credentialDefinitionId)

  // Published again unless still published (a type deleted here keeps its public objects).
  const { context } = agent
  const anoncreds = agent.modules.anoncreds
  const { schemaId } = data.credentialDefinition
  if (!(await anoncreds.getSchema(schemaId)).schema) {
    const schema = await anoncreds.registerSchema({ schema: data.schema, options: {} })
    if (schema.schemaState.schemaId !== schemaId) throw refuse('data.credentialDefinition.schemaId', 'does not match the schema given')
  }
  if (!(await agent.dependencyManager.resolve(AnonCredsCredentialDefinitionRepository).findByCredentialDefinitionId(context, id))) {
    const definition = await anoncreds.registerCredentialDefinition({
      credentialDefinition: data.credentialDefinition,
      options: { supportRevocation: false },
    })
    if (definition.credentialDefinitionState.credentialDefinitionId !== id)
      throw refuse('id', 'does not match the credential definition given')
  }

  await agent.dependencyManager
    .resolve(AnonCredsCredentialDefinitionPrivateRepository)
    .save(context, new AnonCredsCredentialDefinitionPrivateRecord({ credentialDefinitionId: id, value: data.credentialDefinitionPrivate }))
  await agent.dependencyManager
    .resolve(AnonCredsKeyCorrectnessProofRepository)
    .save(context, new AnonCredsKeyCorrectnessProofRecord({ credentialDefinitionId: id, value: data.keyCorrectnessProof }))
  const type = new CredentialTypeRecord({
    name: data.name,
    version: data.version,
    attributes: data.schema.attrNames,
    schemaId: data.credentialDefinition.schemaId,
    credentialDefinitionId: id,
    supportRevocation: false,
  })
  await types(agent).save(context, type)
  return type
}

/**
 * Deletes type `credentialDefinitionId` and its private part: nothing more can be issued from it.
 * Its published schema and definition stay resolvable, so credentials already issued still verify.
 * @throws UnknownCredentialTypeError when there is no such type.
 */
export async function deleteCredentialType(agent: DidcommAgent, credentialDefinitionId: string): Promise<void> {
  const { context } = agent
  const type = await types(agent).findSingleByQuery(context, { credentialDefinitionId })
  if (!type) throw new UnknownCredentialTypeError(credentialDefinitionId)
  const secret = await agent.dependencyManager
    .resolve(AnonCredsCredentialDefinitionPrivateRepository)
    .findByCredentialDefinitionId(context, credentialDefinitionId)
  if (secret) await agent.dependencyManager.resolve(AnonCredsCredentialDefinitionPrivateRepository).delete(context, secret)
  const proof = await agent.dependencyManager
    .resolve(AnonCredsKeyCorrectnessProofRepository)
    .findByCredentialDefinitionId(context, credentialDefinitionId)
  if (proof) await agent.dependencyManager.resolve(AnonCredsKeyCorrectnessProofRepository).delete(context, proof)
  await types(agent).delete(context, type)
}

/** The transfers of one agent's credential types, issuer `issuerId` (its public DID), as one service. */
export class CredentialTypeTransfer {
  constructor(
    private readonly agent: DidcommAgent,
    private readonly issuerId: string,
  ) {}

  /** See `exportCredentialType`. */
  export(credentialDefinitionId: string): Promise<ExportedCredentialType> {
    return exportCredentialType(this.agent, credentialDefinitionId)
  }

  /** See `importCredentialType`. */
  import(exported: ExportedCredentialType): Promise<CredentialTypeRecord> {
    return importCredentialType(this.agent, this.issuerId, exported)
  }

  /** See `deleteCredentialType`. */
  delete(credentialDefinitionId: string): Promise<void> {
    return deleteCredentialType(this.agent, credentialDefinitionId)
  }
}
