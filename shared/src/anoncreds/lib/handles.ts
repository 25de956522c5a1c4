import type { ObjectHandle } from '@hyperledger/anoncreds-shared'
import { ErrorCode, anoncredsError } from './errors.ts'
import { newObjectHandle } from './runtime-classes.ts'

/**
 * Type names of the objects behind handles, exactly as anoncreds-rs reports them from
 * `anoncreds_object_get_type_name` (`impl_anoncreds_object!` in `src/ffi/*`). Note the
 * key-correctness proof is `KeyCorrectnessProof` and W3C proof details are `CredentialProofInfo`.
 */
export type ObjectTypeName =
  | 'Schema'
  | 'CredentialDefinition'
  | 'CredentialDefinitionPrivate'
  | 'KeyCorrectnessProof'
  | 'CredentialOffer'
  | 'CredentialRequest'
  | 'CredentialRequestMetadata'
  | 'Credential'
  | 'PresentationRequest'
  | 'Presentation'
  | 'W3CCredential'
  | 'W3CPresentation'
  | 'CredentialProofInfo'

/** One entry of the handle table: the object's type name and its value (a JSON shape). */
export type HandleEntry = { typeName: ObjectTypeName; value: unknown }

/**
 * The engine's object table: numeric handles (as `ObjectHandle`) to `{ typeName, value }`.
 * Handles start at 1 and are never reused. Looking up a freed or unknown handle, or one of the
 * wrong type, throws `AnoncredsError` (code `Input`), like anoncreds-rs' `cast_ref`.
 */
export class HandleTable {
  private readonly entries = new Map<number, HandleEntry>()
  private next = 1

  /** Stores `value` and returns its new handle. */
  put(typeName: ObjectTypeName, value: unknown): ObjectHandle {
    const id = this.next++
    this.entries.set(id, { typeName, value })
    return newObjectHandle(id)
  }

  /** The entry behind `handle`; throws when it is unknown or freed. */
  entry(handle: ObjectHandle | number): HandleEntry {
    const id = typeof handle === 'number' ? handle : handle?.handle
    const entry = typeof id === 'number' ? this.entries.get(id) : undefined
    if (!entry) throw anoncredsError(ErrorCode.Input, `Invalid object handle: ${String(id)}`)
    return entry
  }

  /** The value behind `handle`, checked to be of `typeName`. */
  get<T>(handle: ObjectHandle | number, typeName: ObjectTypeName): T {
    const entry = this.entry(handle)
    if (entry.typeName !== typeName) {
      throw anoncredsError(ErrorCode.Input, `Invalid object type: expected ${typeName}, found ${entry.typeName}`)
    }
    return entry.value as T
  }

  /** Releases `handle`; freeing an unknown handle is a no-op, as in anoncreds-rs. */
  free(handle: ObjectHandle | number): void {
    const id = typeof handle === 'number' ? handle : handle?.handle
    if (typeof id === 'number') this.entries.delete(id)
  }

  /** Number of live handles (for tests and leak checks). */
  get size(): number {
    return this.entries.size
  }
}
