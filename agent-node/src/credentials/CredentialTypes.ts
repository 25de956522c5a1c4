/**
 * Credential types (spec "Credential type"): `create` registers an AnonCreds schema and a
 * credential definition under the agent's public DID (the issuer id) through Credo, which keeps
 * the definition's private key and key-correctness proof in the agent's storage. A type is found
 * again by name and version, so creating it twice returns the first one; creations and imports
 * (`transfer.ts`) run one at a time (`oneTypeWriteAtATime`), so two concurrent requests cannot
 * mint two types of one name and version. The definition's keys are made in worker threads
 * (`CredentialKeyWorkers`) before Credo's synchronous engine call, so the agent keeps answering
 * while they are made; each step is logged as a progress line.
 *
 * `checkClaims` is how offers and issuance validate claims: exactly one value per attribute.
 */
import type { Claim } from '@parley/shared'
import { KeyedQueue } from '@parley/shared/concurrency'
import type { CredentialKeyWorkers } from '../anoncreds-registry/key-generation/CredentialKeyWorkers.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { type FieldIssue, InvalidInputError, NotFoundError } from '../errors/index.ts'
import type { Logger } from '../logging/index.ts'
import { recordRepository } from '../wallet/storage/repository.ts'
import { CredentialTypeRecord } from './CredentialTypeRecord.ts'

/** What `POST /v1/credential-types` asks for. */
export interface CredentialTypeRequest {
  name: string
  version: string
  attributes: string[]
  supportRevocation?: boolean
}

/** Credo could not register the schema or the credential definition. */
export class CredentialTypeRegistrationError extends Error {
  constructor(what: 'schema' | 'credential definition', reason: string) {
    super(`could not register the ${what}: ${reason}`)
    this.name = 'CredentialTypeRegistrationError'
  }
}

/** No credential type has this credential definition id (not found, naming `credentialDefinitionId`). */
export class UnknownCredentialDefinitionError extends NotFoundError {
  constructor(readonly credentialDefinitionId: string) {
    const message = `unknown credential definition '${credentialDefinitionId}': create it with POST /v1/credential-types`
    super(message, [{ field: 'credentialDefinitionId', message }])
  }
}

/** Claims that do not match the type's attributes (invalid input); `issues` name each problem. */
export class ClaimsMismatchError extends InvalidInputError {
  declare readonly issues: FieldIssue[]
  constructor(issues: FieldIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.message}`).join('; '), issues)
  }
}

/** Per agent, the queue its credential type creations and imports wait in (`oneTypeWriteAtATime`). */
const typeWrites = new WeakMap<DidcommAgent, KeyedQueue>()

/**
 * Runs `write` once every credential type creation or import of `agent` started before it has
 * settled, so no two of them check for an existing type (name and version, or credential
 * definition id) and then both add one: `CredentialTypes.create` and `importCredentialType`.
 * @returns `write`'s result; rejects with its error.
 */
export function oneTypeWriteAtATime<T>(agent: DidcommAgent, write: () => Promise<T>): Promise<T> {
  let queue = typeWrites.get(agent)
  if (!queue) {
    queue = new KeyedQueue()
    typeWrites.set(agent, queue)
  }
  return queue.run('credential-types', write)
}

export class CredentialTypes {
  /**
   * @param issuerId the agent's public DID, issuer of every schema and definition.
   * @param keys where definition keys are made, and the logger of their progress lines.
   */
  constructor(
    private readonly agent: DidcommAgent,
    private readonly issuerId: string,
    private readonly keys: { workers: CredentialKeyWorkers; logger: Logger },
  ) {}

  /**
   * Returns the type named `name` at `version`, creating schema and definition when there is none.
   * An existing type is returned as is, whatever `attributes` this call asked for.
   * @returns the record and whether this call created it.
   * @throws CredentialTypeRegistrationError when the registry refuses either object.
   */
  create(request: CredentialTypeRequest): Promise<{ type: CredentialTypeRecord; created: boolean }> {
    return oneTypeWriteAtATime(this.agent, () => this.findOrCreate(request))
  }

  /** Whether this agent has any credential type (it issues). */
  async any(): Promise<boolean> {
    return (await this.repository().findByQuery(this.agent.context, {}, { limit: 1 })).length > 0
  }

  /** Every type, oldest first. */
  async list(): Promise<CredentialTypeRecord[]> {
    const all = await this.repository().getAll(this.agent.context)
    return all.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  }

  /** The type whose credential definition id is `credentialDefinitionId`, if any. */
  find(credentialDefinitionId: string): Promise<CredentialTypeRecord | null> {
    return this.repository().findSingleByQuery(this.agent.context, { credentialDefinitionId })
  }

  /**
   * The type of `credentialDefinitionId`, after checking `claims` carry exactly its attributes.
   * @throws UnknownCredentialDefinitionError, ClaimsMismatchError (missing, extra or repeated names).
   */
  async checkClaims(credentialDefinitionId: string, claims: readonly Claim[], field = 'claims'): Promise<CredentialTypeRecord> {
    const type = await this.get(credentialDefinitionId)
    const issues: { field: string; message: string }[] = []
    const seen = new Set<string>()
    claims.forEach((claim, index) => {
      if (!type.attributes.includes(claim.name))
        issues.push({
          field: `${field}.${index}.name`,
          message: `'${claim.name}' is not an attribute of this credential type (${type.attributes.join(', ')})`,
        })
      else if (seen.has(claim.name)) issues.push({ field: `${field}.${index}.name`, message: `'${claim.name}' is given twice` })
      seen.add(claim.name)
    })
    const missing = type.attributes.filter((name) => !seen.has(name))
    if (missing.length > 0) issues.push({ field, message: `missing claims: ${missing.join(', ')}` })
    if (issues.length > 0) throw new ClaimsMismatchError(issues)
    return type
  }

  private async get(credentialDefinitionId: string): Promise<CredentialTypeRecord> {
    const type = await this.find(credentialDefinitionId)
    if (!type) throw new UnknownCredentialDefinitionError(credentialDefinitionId)
    return type
  }

  private async findOrCreate(request: CredentialTypeRequest): Promise<{ type: CredentialTypeRecord; created: boolean }> {
    const { context } = this.agent
    const existing = await this.repository().findSingleByQuery(context, { name: request.name, version: request.version })
    if (existing) return { type: existing, created: false }

    const anoncreds = this.agent.modules.anoncreds
    const schema = await anoncreds.registerSchema({
      schema: { issuerId: this.issuerId, name: request.name, version: request.version, attrNames: request.attributes },
      options: {},
    })
    const { schemaState } = schema
    if (schemaState.state !== 'finished')
      throw new CredentialTypeRegistrationError('schema', 'reason' in schemaState ? String(schemaState.reason) : schemaState.state)
    // Key generation takes seconds: the keys are made in worker threads first, and Credo's
    // synchronous engine call below only picks them up, so the event loop keeps serving.
    const what = { name: request.name, version: request.version }
    await this.keys.workers
      .prepare(request.attributes, ({ step, source, done, total, elapsedMs }) =>
        this.keys.logger.info(
          { ...what, step, ...(source && { source }), elapsedMs: Math.round(elapsedMs) },
          `credential definition keys: ${step} ready (${done}/${total})${source === 'reserve' ? ', from the reserve' : ''}`,
        ),
      )
      .catch((error: unknown) => {
        throw new CredentialTypeRegistrationError('credential definition', error instanceof Error ? error.message : String(error))
      })
    // Revocation registries come with the revocation issue; until then a definition never supports it.
    const definition = await anoncreds.registerCredentialDefinition({
      credentialDefinition: { issuerId: this.issuerId, schemaId: schemaState.schemaId, tag: request.version },
      options: { supportRevocation: false },
    })
    const { credentialDefinitionState: state } = definition
    if (state.state !== 'finished')
      throw new CredentialTypeRegistrationError('credential definition', 'reason' in state ? String(state.reason) : state.state)

    const type = new CredentialTypeRecord({
      name: request.name,
      version: request.version,
      attributes: request.attributes,
      schemaId: schemaState.schemaId,
      credentialDefinitionId: state.credentialDefinitionId,
      supportRevocation: request.supportRevocation ?? false,
    })
    await this.repository().save(context, type)
    return { type, created: true }
  }

  private repository() {
    return recordRepository(this.agent.context, CredentialTypeRecord)
  }
}
