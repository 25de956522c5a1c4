/**
 * Authentication of the tunnel WebSocket upgrade: HMAC-SHA-256, keyed with the shared
 * `TUNNEL_SECRET`, over `parley-tunnel-v1\n<timestamp>\n<nonce>`.
 *
 * agent-node sends three headers on the upgrade request:
 * - `x-parley-timestamp`: Unix time in milliseconds,
 * - `x-parley-nonce`: 16 random bytes, hex,
 * - `x-parley-signature`: the HMAC, hex.
 *
 * The worker accepts a timestamp within `maxSkewMs` of its clock and each nonce once (it keeps
 * nonces for that window). Web Crypto only, so it runs on Node and in workerd alike.
 *
 * A fourth header, `x-parley-instance`, names the agent-node instance dialling (several may share
 * one database and one worker: issue 17, "More than one agent-node"). It is not signed: it only
 * decides which earlier socket a new one replaces (the same instance's), and anyone who can sign
 * may name any instance anyway.
 */
export const HANDSHAKE_HEADERS = {
  timestamp: 'x-parley-timestamp',
  nonce: 'x-parley-nonce',
  signature: 'x-parley-signature',
  instance: 'x-parley-instance',
} as const

/** What an instance id looks like (`INSTANCE_ID`); the instance of a socket without the header is `default`. */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/

/** The instance a tunnel upgrade names (`x-parley-instance`), `default` when absent or malformed. */
export function handshakeInstance(headers: Headers): string {
  const instance = headers.get(HANDSHAKE_HEADERS.instance)
  return instance && INSTANCE_ID_PATTERN.test(instance) ? instance : 'default'
}

/** A handshake nonce: 16 random bytes in lowercase hex. */
const NONCE_HEX = '[0-9a-f]{32}'
const NONCE = new RegExp(`^${NONCE_HEX}$`)
/** The end of a `replacedCloseReason`, the nonce captured. */
const REPLACING_NONCE = new RegExp(`\\(nonce (${NONCE_HEX})\\)$`)

/** Default acceptance window for handshake timestamps, in milliseconds (either direction). */
export const DEFAULT_MAX_SKEW_MS = 5 * 60_000

export interface TunnelHandshake {
  timestamp: number
  nonce: string
  signature: string
}

const encoder = new TextEncoder()

function toHex(bytes: ArrayBuffer | Uint8Array): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('')
}

async function hmac(secret: string, timestamp: number, nonce: string): Promise<ArrayBuffer> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  return crypto.subtle.sign('HMAC', key, encoder.encode(`parley-tunnel-v1\n${timestamp}\n${nonce}`))
}

/** Creates the handshake headers' values for `secret` at time `now` (ms). */
export async function signTunnelHandshake(secret: string, now = Date.now()): Promise<TunnelHandshake> {
  const nonce = toHex(crypto.getRandomValues(new Uint8Array(16)))
  return { timestamp: now, nonce, signature: toHex(await hmac(secret, now, nonce)) }
}

/** The handshake as request headers, with the dialling `instance` when given. */
export function handshakeHeaders(handshake: TunnelHandshake, instance?: string): Record<string, string> {
  return {
    [HANDSHAKE_HEADERS.timestamp]: String(handshake.timestamp),
    [HANDSHAKE_HEADERS.nonce]: handshake.nonce,
    [HANDSHAKE_HEADERS.signature]: handshake.signature,
    ...(instance ? { [HANDSHAKE_HEADERS.instance]: instance } : {}),
  }
}

export type HandshakeVerdict =
  | { ok: true; handshake: TunnelHandshake }
  | { ok: false; reason: 'missing-headers' | 'stale-timestamp' | 'bad-signature' }

/**
 * Checks signature and timestamp of a handshake read from `headers`. Nonce reuse is the
 * caller's check (it needs storage): call it only after this returns `ok`.
 */
export async function verifyTunnelHandshake(
  secret: string,
  headers: Headers,
  now = Date.now(),
  maxSkewMs = DEFAULT_MAX_SKEW_MS,
): Promise<HandshakeVerdict> {
  const timestamp = Number(headers.get(HANDSHAKE_HEADERS.timestamp))
  const nonce = headers.get(HANDSHAKE_HEADERS.nonce)
  const signature = headers.get(HANDSHAKE_HEADERS.signature)
  if (!Number.isSafeInteger(timestamp) || !nonce || !NONCE.test(nonce) || !signature) {
    return { ok: false, reason: 'missing-headers' }
  }
  if (Math.abs(now - timestamp) > maxSkewMs) return { ok: false, reason: 'stale-timestamp' }
  const expected = new Uint8Array(await hmac(secret, timestamp, nonce))
  const given = hexToBytes(signature)
  if (!given || !constantTimeEqual(expected, given)) return { ok: false, reason: 'bad-signature' }
  return { ok: true, handshake: { timestamp, nonce, signature } }
}

function hexToBytes(hex: string): Uint8Array | null {
  if (!/^([0-9a-f]{2})+$/.test(hex)) return null
  return Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16))
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

/**
 * The reason of a `TUNNEL_CLOSE_REPLACED` close: it names the nonce of the handshake that replaced
 * the socket, so an agent-node can tell one of its own handshakes that arrived late (one it had
 * given up on, delivered by a proxy after its next one) from another client's. 78 bytes, within
 * the 123 a close reason may hold.
 */
export function replacedCloseReason(nonce: string): string {
  return `replaced by a newer tunnel connection (nonce ${nonce})`
}

/** The nonce a `replacedCloseReason` names; undefined when `reason` names none. */
export function replacingNonce(reason: string): string | undefined {
  return REPLACING_NONCE.exec(reason)?.[1]
}
