/**
 * DIDComm v1 envelopes (Aries RFC 0019) that look valid up to decryption, for tests and benches
 * of what the public port refuses before it looks any key up: random keys, random ciphertext.
 */
import { randomBytes } from 'node:crypto'
import { TypedArrayEncoder } from '@credo-ts/core'

/** A JSON envelope addressed to `recipients` random keys; `padding` bytes of ciphertext. */
export function bogusEnvelope(recipients: number, padding = 32): string {
  const header = {
    enc: 'xchacha20poly1305_ietf',
    typ: 'JWM/1.0',
    alg: 'Anoncrypt',
    recipients: Array.from({ length: recipients }, () => ({
      encrypted_key: randomBytes(80).toString('base64url'),
      header: { kid: TypedArrayEncoder.toBase58(randomBytes(32)) },
    })),
  }
  return JSON.stringify({
    protected: Buffer.from(JSON.stringify(header)).toString('base64url'),
    iv: randomBytes(24).toString('base64url'),
    ciphertext: randomBytes(padding).toString('base64url'),
    tag: randomBytes(16).toString('base64url'),
  })
}

/** The recipients bomb: about as many bogus recipients as fit in `bytes`, never more bytes (19,500 in 5 MB). */
export function recipientsBomb(bytes = 5_000_000): { envelope: string; recipients: number } {
  const perRecipient = bogusEnvelope(2).length - bogusEnvelope(1).length
  // Keys are 43 or 44 base58 characters: shrink until the random draw fits.
  for (let recipients = Math.floor((bytes - 200) / perRecipient); ; recipients -= 10) {
    const envelope = bogusEnvelope(recipients)
    if (envelope.length <= bytes) return { envelope, recipients }
  }
}
