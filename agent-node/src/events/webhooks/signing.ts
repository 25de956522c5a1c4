/**
 * Webhook signatures as the Standard Webhooks specification defines them
 * (https://www.standardwebhooks.com, "Signature scheme"): each request carries
 * - `webhook-id`: the event id, the same on every retry (receivers drop duplicates by it),
 * - `webhook-timestamp`: Unix seconds of this attempt (receivers reject stale ones),
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`,
 * where the key is the base64 part of a `whsec_<base64>` secret. Receivers verify with any
 * Standard Webhooks library (`standardwebhooks` on npm, `svix`, …) and the same secret.
 */
import { createHmac } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'
/** Shortest key accepted, in bytes (the specification recommends 24 to 64). */
export const MIN_SIGNING_KEY_BYTES = 24

/**
 * Decodes a `whsec_<base64>` secret into its key bytes.
 * @throws Error naming the problem when the prefix is missing, the base64 is invalid or the key is shorter than 24 bytes.
 */
export function parseSigningSecret(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`must start with '${SECRET_PREFIX}' (Standard Webhooks secret format)`)
  const encoded = secret.slice(SECRET_PREFIX.length)
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new Error(`the part after '${SECRET_PREFIX}' must be base64`)
  const key = Buffer.from(encoded, 'base64')
  if (key.length < MIN_SIGNING_KEY_BYTES) throw new Error(`the key must be at least ${MIN_SIGNING_KEY_BYTES} bytes (got ${key.length})`)
  return key
}

/** The three Standard Webhooks headers for one attempt of `body` (the exact bytes sent). */
export function signatureHeaders(key: Buffer, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` }
}
