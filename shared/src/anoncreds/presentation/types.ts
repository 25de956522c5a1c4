import type { CredentialDefinition } from '../objects/credential-definition.ts'
import type { Schema } from '../objects/schema.ts'

/** What to prove from one credential entry (the `NativeCredentialProve` of anoncreds-shared). */
export type CredentialProve = { entryIndex: number; referent: string; isPredicate: boolean; reveal: boolean }

/** The schemas and credential definitions the caller supplied, by id. */
export type Ledger = {
  schemas: ReadonlyMap<string, Schema>
  credentialDefinitions: ReadonlyMap<string, CredentialDefinition>
}

/** CL predicate type of a request's `p_type`. */
export function clPredicateType(pType: '>=' | '<=' | '>' | '<'): 'GE' | 'LE' | 'GT' | 'LT' {
  return ({ '>=': 'GE', '<=': 'LE', '>': 'GT', '<': 'LT' } as const)[pType]
}

/**
 * A credential the holder presents from (`NativeCredentialEntry` of anoncreds-shared, resolved):
 * `timestamp` and `hasRevocationState` are set only for revocation, which is not supported yet.
 */
export interface CredentialEntry<C> {
  credential: C
  timestamp?: number
  hasRevocationState: boolean
}
