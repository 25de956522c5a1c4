/**
 * AnonCreds object identifiers of 2060.io's did:web AnonCreds method (public repo
 * `2060-io/did-web-anoncreds-method`, spec.md), used with did:web and did:webvh issuers alike:
 *
 *     <issuer DID>?service=anoncreds&relativeRef=/<path>/<object id>
 *
 * - `<path>`: `schema` or `credDef` (the paths 2060.io's agents serve; revocation objects,
 *   `revRegDef`, come later);
 * - `<object id>`: base58btc of SHA-256 of the object canonicalized with RFC 8785 (JCS), so the
 *   id is fixed by the content: registering the same object again gives the same id, and a
 *   resolver checks what it fetched against it.
 *
 * The object is fetched at `<anoncreds service endpoint><relativeRef>`.
 */
import { TypedArrayEncoder } from '@credo-ts/core'
import { sha256 } from '@noble/hashes/sha2.js'
import canonicalize from 'canonicalize'
import { ANONCREDS_SERVICE } from '../did/document.ts'

/** Kinds of objects stored and served, named by their path in the relative reference. */
export type AnonCredsObjectKind = 'schema' | 'credDef'

/** Object ids of did:web / did:webvh issuers (Credo picks the registry with it). */
export const DID_WEB_ANONCREDS_IDENTIFIER = /^did:web(vh)?:[^?#/\s]+(\?service=[A-Za-z0-9_-]+&relativeRef=\/[^\s]+)?$/

/** An object id taken apart. */
export interface ParsedObjectId {
  /** The issuer DID. */
  did: string
  /** The service fragment (`anoncreds`). */
  service: string
  /** `/<path>/<object id>`. */
  relativeRef: string
  kind: AnonCredsObjectKind
  /** The content hash, last segment of `relativeRef`. */
  objectId: string
}

/** base58btc(SHA-256(JCS(object))). */
export function contentId(object: unknown): string {
  const canonical = canonicalize(object)
  if (canonical === undefined) throw new Error('cannot canonicalize the AnonCreds object')
  return TypedArrayEncoder.toBase58(sha256(new TextEncoder().encode(canonical)))
}

/** The id of `object` (its `issuerId` is the DID) stored as `kind`. */
export function anonCredsObjectId(issuerId: string, kind: AnonCredsObjectKind, object: unknown): string {
  return anonCredsObjectIdFor(issuerId, kind, contentId(object))
}

/** The id of object `objectId` (a content id) of `kind` published by `did`. */
export function anonCredsObjectIdFor(did: string, kind: AnonCredsObjectKind, objectId: string): string {
  return `${did}?service=${ANONCREDS_SERVICE}&relativeRef=/${kind}/${objectId}`
}

/** Parses an object id of the form above; undefined when `id` is not one. */
export function parseAnonCredsObjectId(id: string): ParsedObjectId | undefined {
  const [did, query, ...rest] = id.split('?')
  if (!did || query === undefined || rest.length > 0 || !DID_WEB_ANONCREDS_IDENTIFIER.test(did)) return undefined
  const params = new URLSearchParams(query)
  const service = params.get('service')
  const relativeRef = params.get('relativeRef')
  const match = relativeRef ? /^\/(schema|credDef)\/([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(relativeRef) : null
  if (!service || !relativeRef || !match || [...params.keys()].length !== 2) return undefined
  return { did, service, relativeRef, kind: match[1] as AnonCredsObjectKind, objectId: match[2]! }
}
