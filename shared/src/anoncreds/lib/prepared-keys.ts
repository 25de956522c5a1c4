/**
 * Issuer keys made ahead of the synchronous `createCredentialDefinition` of the `Anoncreds`
 * interface. Key generation takes about a second (two safe primes); a caller that can wait
 * asynchronously (agent-node's worker threads) makes the keys elsewhere, hands them in here, and
 * the engine's `createCredentialDefinition` for the same attribute list then takes them instead of
 * generating keys on the calling thread. Each prepared key is used once.
 */
import { LINK_SECRET_ATTRIBUTE, normalizeAttributeName } from '../encoding/index.ts'
import type { CredentialKeys } from '../issuance/index.ts'
import { inputError } from './errors.ts'

/** At most this many prepared keys wait at once; older ones are dropped (never used). */
const MAX_WAITING = 8

/**
 * The attribute list a credential definition's keys are made for: the schema's attribute names
 * normalised (lowercase, no spaces), in schema order, then `master_secret` (the order of
 * `primary.r` as anoncreds-rs writes it).
 * @throws AnoncredsError (code Input) when a name is `master_secret` or names repeat after
 *   normalisation.
 */
export function credentialKeyAttributeNames(schemaAttributeNames: readonly string[]): string[] {
  const names = schemaAttributeNames.map(normalizeAttributeName)
  if (names.includes(LINK_SECRET_ATTRIBUTE)) inputError(`Schema attribute name ${LINK_SECRET_ATTRIBUTE} is reserved`)
  if (new Set(names).size !== names.length) inputError('Attributes inside the schema must be unique (after normalisation)')
  return [...names, LINK_SECRET_ATTRIBUTE]
}

/** Prepared issuer keys per attribute list (as `credentialKeyAttributeNames` returns it), first in first out. */
export class PreparedCredentialKeys {
  private readonly waiting: Array<{ id: string; keys: CredentialKeys }> = []

  /** Adds keys made for `attributeNames` (the list `credentialKeyAttributeNames` returns). */
  add(attributeNames: readonly string[], keys: CredentialKeys): void {
    this.waiting.push({ id: listId(attributeNames), keys })
    if (this.waiting.length > MAX_WAITING) this.waiting.shift()
  }

  /** Removes and returns the oldest keys prepared for exactly this attribute list, if any. */
  take(attributeNames: readonly string[]): CredentialKeys | undefined {
    const id = listId(attributeNames)
    const index = this.waiting.findIndex((entry) => entry.id === id)
    return index < 0 ? undefined : this.waiting.splice(index, 1)[0]!.keys
  }
}

function listId(names: readonly string[]): string {
  return JSON.stringify(names)
}
