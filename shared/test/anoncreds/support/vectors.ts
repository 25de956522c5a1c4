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

const SHARED_DIR = process.env.PARLEY_SHARED_DIR ?? fileURLToPath(new URL('../../../../../shared', import.meta.url))

/** Absolute path of the vectors folder, no trailing slash. */
export const VECTORS_DIR = join(SHARED_DIR, 'vectors', 'anoncreds-w3c')

/** A vector file parsed as JSON. */
export const vector = (name: string): any => JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8'))

/** A msgpack value as the vectors' proof values hold it (big integers as byte arrays). */
export type Msgpack = Uint8Array | number[] | { [key: string]: Msgpack } | Msgpack[] | string | number | null

/** Decodes a W3C `proofValue` (`u` + base64url(msgpack)) into `[version, body]`. */
export const unpack = (proofValue: string) => decode(Buffer.from(proofValue.slice(1), 'base64url')) as [number, Record<string, any>]

/** A big-endian byte array as an integer (empty = 0). */
export const fromBytes = (bytes: ArrayLike<number>) =>
  bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(Uint8Array.from(bytes)).toString('hex')}`)

const isBytes = (v: unknown): v is ArrayLike<number> => v instanceof Uint8Array || (Array.isArray(v) && v.every((b) => typeof b === 'number'))

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
