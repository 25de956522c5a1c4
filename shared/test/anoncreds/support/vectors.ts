/**
 * The AnonCreds test vectors: the project's shared folder beside the repository
 * (`<repo>/../shared/vectors/anoncreds-w3c`, as every checkout and CI lays it out), or
 * `$PARLEY_SHARED_DIR/vectors/anoncreds-w3c`; plus decoding of the vectors' W3C proof values
 * into the anoncreds-rs JSON shapes the engine's lower layers take.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { decode } from '@msgpack/msgpack'
import type { CredentialPrimaryPublicKey } from '../../../src/anoncreds/proof/index.ts'
import type { CredentialRevocationPublicKey, RevocationRegistryPublicKey } from '../../../src/anoncreds/revocation/index.ts'

const SHARED_DIR = process.env.PARLEY_SHARED_DIR ?? fileURLToPath(new URL('../../../../../shared', import.meta.url))

/** Absolute path of the vectors folder, no trailing slash. */
export const VECTORS_DIR = join(SHARED_DIR, 'vectors', 'anoncreds-w3c')

/** The vector files `vector` reads, typed as far as the tests read them (anoncreds-rs JSON forms). */
export interface VectorFiles {
  'anoncreds-credential-definition.json': {
    credentialDefinition: { value: { primary: CredentialPrimaryPublicKey; revocation: CredentialRevocationPublicKey } }
  }
  'anoncreds-revocation-registry-definition.json': {
    revocationRegistryDefinition: { value: { publicKeys: { accumKey: RevocationRegistryPublicKey } } }
  }
  'anoncreds-revocation-status-list.json': { currentAccumulator: string }
  'anoncreds-presentation-request.json': { nonce: string }
  'anoncreds-legacy-credential.json': { values: Record<string, { raw: string; encoded: string }> }
  'anoncreds-link-secret.json': { linkSecret: string }
  /** One credential, with one proof. */
  'w3c-presentation-anoncreds.json': {
    proof: { proofValue: string; challenge: string }
    verifiableCredential: [{ proof: { proofValue: string } }]
  }
}

/** A vector file parsed as JSON. */
export const vector = <Name extends keyof VectorFiles>(name: Name): VectorFiles[Name] =>
  JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8'))

/** A msgpack value as the vectors' proof values hold it (big integers as byte arrays). */
export type Msgpack = Uint8Array | number[] | { [key: string]: Msgpack } | Msgpack[] | string | number | null

/** `sub_proof` of a credential's proof value in a presentation, in msgpack form. */
export type SubProofMsgpack = { primary_proof: Msgpack; non_revoc_proof: Msgpack }

/** Decodes a W3C `proofValue` (`u` + base64url(msgpack)) into `[version, body]`. */
export const unpack = (proofValue: string) => decode(Buffer.from(proofValue.slice(1), 'base64url')) as [number, Record<string, Msgpack>]

/** A big-endian byte array as an integer (empty = 0). */
export const fromBytes = (bytes: ArrayLike<number>) =>
  bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(Uint8Array.from(bytes)).toString('hex')}`)

const isBytes = (v: unknown): v is ArrayLike<number> =>
  v instanceof Uint8Array || (Array.isArray(v) && v.every((b) => typeof b === 'number'))

/** msgpack form (big integers as bytes) -> anoncreds-rs JSON form (decimal strings); `predicate` kept as is. */
export function toJson(value: Msgpack, key = ''): unknown {
  if (isBytes(value)) return fromBytes(value).toString()
  if (Array.isArray(value)) return value.map((v) => toJson(v))
  if (typeof value === 'object' && value !== null) {
    if (key === 'predicate') return value
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v, k)]))
  }
  return value
}
