/**
 * What the public port checks on an inbound DIDComm envelope before any key lookup or
 * decryption, shared by the HTTP and WebSocket transports. Everything here runs without
 * authentication, so its cost is bounded by the envelope's size, and the size is bounded first.
 *
 * A DIDComm v1 envelope (Aries RFC 0019 "Encryption Envelope") is a JWE in JSON serialization:
 * `{ protected, iv, ciphertext, tag }`, with `protected` the base64url of
 * `{ enc: "xchacha20poly1305_ietf", typ, alg: "Authcrypt" | "Anoncrypt", recipients: [{ encrypted_key, header: { kid, sender?, iv? } }] }`.
 * Credo looks every recipient's `kid` up in the wallet (several database queries each) before it
 * finds its own, so the number of recipients is what makes an unauthenticated envelope expensive:
 * it is capped, and the protected header's size with it.
 */
import { isValidJweStructure, type DidCommEncryptedMessage } from '@credo-ts/didcomm'
import { z } from 'zod'

/** Bounds of an inbound envelope (config `didcomm`). */
export interface EnvelopeLimits {
  /** Largest envelope, in bytes (HTTP body or WebSocket message). */
  maxBytes: number
  /** Most recipients in the protected header. */
  maxRecipients: number
}

/** 5 MiB (media travels by reference, not inline) and 8 recipients (a wallet uses one or two). */
export const DEFAULT_ENVELOPE_LIMITS: EnvelopeLimits = { maxBytes: 5 * 1024 * 1024, maxRecipients: 8 }

/** The outcome: the envelope to hand to Credo, or why it was refused with the HTTP status that says so. */
export type EnvelopeCheck = { ok: true; envelope: DidCommEncryptedMessage } | { ok: false; status: 400 | 413; reason: string }

/** Base64url-encoded bytes per recipient allowed in the protected header (a real one is about 400). */
const PROTECTED_BYTES_PER_RECIPIENT = 1_024

const Recipient = z.object({
  encrypted_key: z.string().max(256),
  header: z.object({
    // An Ed25519 public key in base58: 43 or 44 characters.
    kid: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,50}$/, 'not a base58 key'),
    sender: z.string().max(256).optional(),
    iv: z.string().max(64).optional(),
  }),
})

const ProtectedHeader = z.object({
  enc: z.literal('xchacha20poly1305_ietf'),
  alg: z.enum(['Authcrypt', 'Anoncrypt']),
  recipients: z.array(Recipient).min(1),
})

/**
 * Parses `raw` (the HTTP body or the WebSocket message) and checks it is an envelope within
 * `limits`: 413 when it is larger than `maxBytes`, 400 when it is not JSON, not a JWE, or its
 * protected header is too large, malformed or lists more than `maxRecipients` recipients.
 */
export function checkInboundEnvelope(raw: string | Buffer, limits: EnvelopeLimits): EnvelopeCheck {
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length
  if (size > limits.maxBytes) return { ok: false, status: 413, reason: `envelope larger than ${limits.maxBytes} bytes` }
  let envelope: unknown
  try {
    envelope = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'))
  } catch {
    return { ok: false, status: 400, reason: 'body is not JSON' }
  }
  if (!isValidJweStructure(envelope)) return { ok: false, status: 400, reason: 'body is not a DIDComm encrypted envelope (JWE)' }
  const maxProtected = PROTECTED_BYTES_PER_RECIPIENT * (limits.maxRecipients + 1)
  if (envelope.protected.length > maxProtected) {
    return { ok: false, status: 400, reason: `protected header larger than ${maxProtected} bytes` }
  }
  let header: unknown
  try {
    header = JSON.parse(Buffer.from(envelope.protected, 'base64url').toString('utf8'))
  } catch {
    return { ok: false, status: 400, reason: 'protected header is not base64url JSON' }
  }
  const parsed = ProtectedHeader.safeParse(header)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    return { ok: false, status: 400, reason: `protected header: ${issue.path.join('.') || '(header)'}: ${issue.message}` }
  }
  if (parsed.data.recipients.length > limits.maxRecipients) {
    return {
      ok: false,
      status: 400,
      reason: `envelope lists ${parsed.data.recipients.length} recipients; at most ${limits.maxRecipients} are accepted`,
    }
  }
  return { ok: true, envelope }
}
