/**
 * Identifiers of the local AnonCreds registry. They say where the objects live: nowhere public,
 * only in the storage of the agent that registered them, so a holder or verifier elsewhere cannot
 * resolve them (the did:webvh registry of a later issue replaces this).
 *
 * - issuer:            `parley-local:<name>` (chosen by the caller, e.g. `parley-local:agent-node`)
 * - schema:            `<issuerId>/schema/<digest>`
 * - credential def.:   `<issuerId>/cred-def/<digest>`
 *
 * `<digest>` is base64url(SHA-256(JSON of the object as registered)): the id is fixed by the
 * content, so registering the same object twice gives the same id.
 */
import { createHash } from 'node:crypto'

/** Prefix of every local identifier (issuer and objects). */
export const LOCAL_PREFIX = 'parley-local:'

/** Kinds of objects the local registry stores. */
export type LocalObjectKind = 'schema' | 'cred-def'

/** Matches local issuer ids and local object ids (Credo picks the registry with it). */
export const LOCAL_IDENTIFIER = /^parley-local:[^\s/]+(\/(schema|cred-def)\/[A-Za-z0-9_-]{43})?$/

/** `parley-local:<name>`; `name` must be non-empty without spaces or slashes. */
export function localIssuerId(name: string): string {
  if (!/^[^\s/]+$/.test(name)) throw new Error(`invalid local issuer name: ${JSON.stringify(name)}`)
  return `${LOCAL_PREFIX}${name}`
}

/** True when `issuerId` is a local issuer id (not an object id). */
export function isLocalIssuerId(issuerId: string): boolean {
  return LOCAL_IDENTIFIER.test(issuerId) && !issuerId.includes('/')
}

/** The id of `object` (a schema or credential definition) registered by `issuerId`. */
export function localObjectId(issuerId: string, kind: LocalObjectKind, object: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(object)).digest('base64url')
  return `${issuerId}/${kind}/${digest}`
}

/** The kind of a local object id, or undefined when `id` is not one. */
export function localObjectKind(id: string): LocalObjectKind | undefined {
  const match = LOCAL_IDENTIFIER.exec(id)
  return match?.[2] as LocalObjectKind | undefined
}
