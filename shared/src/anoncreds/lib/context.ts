import type { Anoncreds, ObjectHandle } from '@hyperledger/anoncreds-shared'
import type { CredentialDefinition } from '../objects/credential-definition.ts'
import type { Schema } from '../objects/schema.ts'
import type { Ledger } from '../presentation/types.ts'
import { inputError } from './errors.ts'
import type { HandleTable, ObjectTypeName } from './handles.ts'
import { normaliseObject } from './object-types.ts'
import type { PreparedCredentialKeys } from './prepared-keys.ts'

/** What every group of `Anoncreds` functions works with: the handle table and typed access. */
export type EngineContext = {
  handles: HandleTable
  /** Issuer keys made ahead of `createCredentialDefinition` (e.g. in a worker thread). */
  preparedKeys: PreparedCredentialKeys
  /** Stores an engine-built value (normalised through its schema) and returns its handle. */
  put(typeName: ObjectTypeName, value: unknown): ObjectHandle
  /** The value behind a handle, checked to be of `typeName`. */
  get<T>(handle: ObjectHandle, typeName: ObjectTypeName): T
}

/** A part of the `Anoncreds` interface, built on an `EngineContext`. */
export type EngineOps<K extends keyof Anoncreds> = (ctx: EngineContext) => Pick<Anoncreds, K>

/** Builds the context of an engine over `handles`. */
export function engineContext(handles: HandleTable, preparedKeys: PreparedCredentialKeys): EngineContext {
  return {
    handles,
    preparedKeys,
    put: (typeName, value) => handles.put(typeName, normaliseObject(typeName, value)),
    get: <T>(handle: ObjectHandle, typeName: ObjectTypeName) => handles.get<T>(handle, typeName),
  }
}

/** Schemas and cred defs passed by id (`Record<id, handle>`, as `createPresentation` takes them). */
export function ledgerFromRecords(
  ctx: EngineContext,
  schemas: Record<string, ObjectHandle>,
  credDefs: Record<string, ObjectHandle>,
): Ledger {
  return ledgerFromPairs(ctx, Object.entries(schemas), Object.entries(credDefs))
}

/** Schemas and cred defs passed as parallel lists of handles and ids (as `verifyPresentation` takes them). */
export function ledgerFromLists(
  ctx: EngineContext,
  o: { schemas: ObjectHandle[]; schemaIds: string[]; credentialDefinitions: ObjectHandle[]; credentialDefinitionIds: string[] },
): Ledger {
  if (o.schemas.length !== o.schemaIds.length) inputError('Mismatch between length of schemas and schema ids')
  if (o.credentialDefinitions.length !== o.credentialDefinitionIds.length) {
    inputError('Mismatch between length of credential definitions and credential definition ids')
  }
  return ledgerFromPairs(
    ctx,
    o.schemaIds.map((id, i) => [id, o.schemas[i] as ObjectHandle]),
    o.credentialDefinitionIds.map((id, i) => [id, o.credentialDefinitions[i] as ObjectHandle]),
  )
}

function ledgerFromPairs(ctx: EngineContext, schemas: [string, ObjectHandle][], credDefs: [string, ObjectHandle][]): Ledger {
  return {
    schemas: new Map(schemas.map(([id, h]) => [id, ctx.get<Schema>(h, 'Schema')])),
    credentialDefinitions: new Map(credDefs.map(([id, h]) => [id, ctx.get<CredentialDefinition>(h, 'CredentialDefinition')])),
  }
}
