/**
 * The X25519 key of a peer's Ed25519 key, worked out once. To pack a DIDComm v1 message (Aries
 * RFC 0019, "Encryption Envelope": authcrypt and anoncrypt), each recipient's Ed25519 verkey is
 * turned into its X25519 key for the key agreement (Credo's envelope service does it twice per
 * recipient: the encrypted sender key and the content key), and to open an authcrypt one, the
 * sender's verkey.
 * Each turn is a field inversion in pure JavaScript and a zod parse of the result, about 0.3 ms
 * here, on every message of a peer whose keys never change (bench/README.md, "chat-round-trip").
 * The conversion is a pure function of the public key (the birational map between Ed25519 and
 * Curve25519, RFC 7748 section 4.1), so its result is kept per key in a bounded LRU cache. Only
 * public keys go in; nothing secret is cached.
 */
import { Kms } from '@credo-ts/core'
import { LRUCache } from 'lru-cache'

/** Peer keys whose X25519 form is kept at most (about 200 bytes each). */
const CACHED_KEYS = 10_000

/** An Ed25519 public key, as Credo's envelope keys hold them. */
export type Ed25519Key = Kms.PublicJwk<Kms.Ed25519PublicJwk>

const x25519Keys = new LRUCache<string, Kms.PublicJwk<Kms.X25519PublicJwk>>({ max: CACHED_KEYS })

/** `key`'s X25519 form (as `key.convertTo(X25519PublicJwk)`), from the cache or converted (and kept) now. */
export function x25519Of(key: Ed25519Key): Kms.PublicJwk<Kms.X25519PublicJwk> {
  const cacheKey = Buffer.from(key.publicKey.publicKey).toString('hex')
  let converted = x25519Keys.get(cacheKey)
  if (!converted) {
    converted = key.convertTo(Kms.X25519PublicJwk)
    x25519Keys.set(cacheKey, converted)
  }
  return converted
}
