/**
 * agent-node's runtime settings, read once from the environment into one resolved object that
 * is passed down (config is never read from env anywhere else).
 *
 * Names follow the agent interface spec, "Runtime settings". Settings the
 * spec does not name are documented in docs/configuration.md: PUBLIC_PORT,
 * ADMIN_HOST, AGENT_INVITATION_BASE_URL, AGENT_WALLET_KEY, DATA_DIR, DATABASE_URL, CONTROLLER_TUNNEL_URL,
 * TUNNEL_SECRET, AGENT_PACK_PATH and MCP_SERVERS_CONFIG (stdio MCP servers only), OUTBOUND_ALLOWED_NETWORKS, SHORT_URL_EXPIRY_SECONDS, EVENTS_SIGNING_SECRET,
 * EVENTS_MAX_ATTEMPTS, EVENTS_RETRY_BASE_MS, EVENTS_RETRY_MAX_MS, EVENTS_TIMEOUT_MS, ANONCREDS_SAFE_PRIME_RESERVE,
 * LOG_LEVEL, NODE_ENV.
 * The network-facing limits (DIDCOMM_MAX_*, ADMIN_MAX_*, ADMIN_ALLOWED_*) are in docs/security.md;
 * operational settings in docs/operations.md: READY_MAX_OUTBOX_LAG_SECONDS, ADMIN_API_TOKENS,
 * EVENTS_RETENTION_DAYS, DEAD_LETTERS_RETENTION_DAYS, RECORDS_RETENTION_DAYS, and for more than one
 * agent-node on one database ("More than one agent-node") INSTANCE_ID, LEASE_TTL_SECONDS.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { HttpUrl, INSTANCE_ID_PATTERN } from '@parley/shared'
import { z } from 'zod'
import { didFor, isIpAddress, parseConfiguredDid, schemeFor, type ConfiguredPublicDid } from '../did/identifier.ts'
import { parseSigningSecret } from '../events/webhooks/signing.ts'
import type { WebhookDelivery } from '../events/webhooks/subscriber.ts'
import { parseNetworks } from '../http/outbound-guard.ts'
import { defaultAllowedHosts, normalizeHost, normalizeOrigin, type AdminAccessPolicy } from '../admin/access.ts'
import type { AdminBodyLimits } from '../admin/body-guard.ts'
import { DEFAULT_ENVELOPE_LIMITS, type EnvelopeLimits } from '../didcomm/transport/envelope.ts'
import { loadStdioServers, type StdioServerConfig } from '../mcp/servers.ts'

export interface AgentNodeConfig {
  /** Label shown in invitations (AGENT_LABEL). */
  label: string
  /** Icon shown in invitations (AGENT_INVITATION_IMAGE_URL). */
  invitationImageUrl?: string
  /** Port of the public interface: DIDComm over HTTP and WebSocket, invitation pages (PUBLIC_PORT, default 3001). */
  publicPort: number
  /** Externally reachable base URL of the public interface, no trailing slash (PUBLIC_API_BASE_URL). */
  publicUrl: string
  /**
   * The agent's public DID as configured (AGENT_PUBLIC_DID), host matching `publicUrl`; by default
   * `did:webvh:<host of publicUrl>` (`did:web:` when that host is an IP address).
   */
  publicDid: ConfiguredPublicDid
  /** DIDComm endpoints announced to peers (AGENT_ENDPOINTS), `ws(s)` first. */
  endpoints: string[]
  /** Base of invitation URLs and of the page `GET /invitation` redirects to (AGENT_INVITATION_BASE_URL). */
  invitationBaseUrl: string
  /** Admin interface bind address and port (ADMIN_HOST, default 127.0.0.1; ADMIN_PORT, default 3000). */
  adminHost: string
  adminPort: number
  /** Host and Origin headers admin requests may carry (ADMIN_ALLOWED_HOSTS, ADMIN_ALLOWED_ORIGINS; docs/security.md). */
  adminAccess: AdminAccessPolicy
  /** Admin body bounds (ADMIN_MAX_BODY_BYTES, default 2 MiB; ADMIN_MAX_JSON_DEPTH, default 32). */
  adminBody: AdminBodyLimits
  /** Inbound DIDComm envelope bounds (DIDCOMM_MAX_ENVELOPE_BYTES, default 5 MiB; DIDCOMM_MAX_RECIPIENTS, default 8). */
  envelopeLimits: EnvelopeLimits
  /**
   * Bearer tokens the admin port accepts (ADMIN_API_TOKENS, comma-separated, each at least 22
   * characters); empty: no authentication (`admin/auth.ts`). Secrets: never log them.
   */
  adminApiTokens: string[]
  /** Serve the OpenAPI explorer at `/api` (ENABLE_PUBLIC_API_EXPLORER). */
  enableApiExplorer: boolean
  /** Base URL of the controller's webhook receiver (EVENTS_BASE_URL); events are POSTed to `<base>/<topic>`. */
  eventsBaseUrl?: string
  /**
   * How events are delivered to webhooks (the default subscription and HTTP subscriptions):
   * EVENTS_SIGNING_SECRET (`whsec_<base64>`, decoded; unsigned when absent), EVENTS_MAX_ATTEMPTS
   * (default 12), EVENTS_RETRY_BASE_MS (default 1000), EVENTS_RETRY_MAX_MS (default 300000),
   * EVENTS_TIMEOUT_MS (time allowed for one POST, default 10000).
   */
  eventDelivery: WebhookDelivery
  /** Secret the wallet's private keys are encrypted with (AGENT_WALLET_KEY). */
  walletKey: string
  /** Folder for the embedded database and dev files (DATA_DIR, default ./data). */
  dataDir: string
  /**
   * PostgreSQL URL `postgres://user:password@host:port/database` (DATABASE_URL); when set, every
   * store lives there instead of the SQLite file in `dataDir`. Holds a password: never log it.
   */
  databaseUrl?: string
  /** The edge worker's tunnel endpoint and the shared secret (CONTROLLER_TUNNEL_URL, TUNNEL_SECRET). */
  tunnel?: { url: string; secret: string }
  /**
   * Stdio MCP servers of agent-node's own agent pack (AGENT_PACK_PATH, MCP_SERVERS_CONFIG; manifest
   * spec "mcp"): started at start-up, reached through the tunnel by name.
   */
  mcpStdioServers: StdioServerConfig[]
  /**
   * CIDR ranges that user-supplied URLs (presentation callbacks, event subscriptions) may reach
   * although they are private, loopback or link-local (OUTBOUND_ALLOWED_NETWORKS, default none).
   */
  outboundAllowedNetworks: string[]
  /** How long a short URL (`/s?id=…`) works after it is made, in seconds (SHORT_URL_EXPIRY_SECONDS, default 7 days). */
  shortUrlExpirySeconds: number
  /**
   * `GET /readyz` answers 503 once the oldest event a subscriber has not had is older than this,
   * in seconds (READY_MAX_OUTBOX_LAG_SECONDS, default 300).
   */
  readyMaxOutboxLagSeconds: number
  /**
   * This process among the agent-nodes sharing the database (`cluster/`): `instanceId`
   * (INSTANCE_ID; absent: a random UUID per start) and how long its leases last without renewal,
   * in seconds (LEASE_TTL_SECONDS, default 15).
   */
  cluster: { instanceId?: string; leaseTtlSeconds: number }
  /** What the retention pruner keeps (`retention/`); each in days, 0 keeps forever. */
  retention: RetentionConfig
  /**
   * Safe primes kept ready for credential definitions, searched in the background once this agent
   * has made a credential definition or has credential types at start-up
   * (ANONCREDS_SAFE_PRIME_RESERVE, default 4: two definitions; 0: none).
   */
  safePrimeReserve: number
  /** pino level (LOG_LEVEL, default info). */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  production: boolean
}

/**
 * Retention periods, in days (0: keep forever): `eventsDays` (EVENTS_RETENTION_DAYS, default 7),
 * outbox events delivered to every subscriber and dead letters already replayed;
 * `deadLettersDays` (DEAD_LETTERS_RETENTION_DAYS, default 30), dead letters never replayed,
 * counted from their last change; `recordsDays` (RECORDS_RETENTION_DAYS, default 0), records in a
 * final state (`retention/records.ts`), counted from their last change.
 */
export interface RetentionConfig {
  eventsDays: number
  deadLettersDays: number
  recordsDays: number
}

/** Thrown when the environment cannot make a valid configuration; `problems` name each variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

const port = z.coerce.number().int().min(0).max(65_535)
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')

const Env = z.object({
  AGENT_LABEL: z.string().min(1).default('Parley'),
  AGENT_INVITATION_IMAGE_URL: HttpUrl.optional(),
  PUBLIC_PORT: port.default(3001),
  PUBLIC_API_BASE_URL: HttpUrl.optional(),
  AGENT_PUBLIC_DID: z.string().optional(),
  AGENT_ENDPOINTS: z.string().optional(),
  AGENT_INVITATION_BASE_URL: HttpUrl.optional(),
  ADMIN_HOST: z.string().min(1).default('127.0.0.1'),
  ADMIN_PORT: port.default(3000),
  ADMIN_ALLOWED_HOSTS: z.string().optional(),
  ADMIN_ALLOWED_ORIGINS: z.string().optional(),
  ADMIN_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(2 * 1024 * 1024),
  ADMIN_MAX_JSON_DEPTH: z.coerce.number().int().min(2).max(1_000).default(32),
  DIDCOMM_MAX_ENVELOPE_BYTES: z.coerce.number().int().min(1_024).default(DEFAULT_ENVELOPE_LIMITS.maxBytes),
  DIDCOMM_MAX_RECIPIENTS: z.coerce.number().int().min(1).max(1_000).default(DEFAULT_ENVELOPE_LIMITS.maxRecipients),
  ADMIN_API_TOKENS: z.string().optional(),
  ENABLE_PUBLIC_API_EXPLORER: flag.default(false),
  EVENTS_BASE_URL: HttpUrl.optional(),
  EVENTS_SIGNING_SECRET: z.string().optional(),
  EVENTS_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(12),
  EVENTS_RETRY_BASE_MS: z.coerce.number().int().min(0).default(1_000),
  EVENTS_RETRY_MAX_MS: z.coerce.number().int().min(0).default(300_000),
  EVENTS_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  AGENT_WALLET_KEY: z.string().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' }).optional(),
  CONTROLLER_TUNNEL_URL: z.url({ protocol: /^wss?$/ }).optional(),
  TUNNEL_SECRET: z.string().optional(),
  OUTBOUND_ALLOWED_NETWORKS: z.string().optional(),
  SHORT_URL_EXPIRY_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(7 * 24 * 3600),
  READY_MAX_OUTBOX_LAG_SECONDS: z.coerce.number().positive().default(300),
  INSTANCE_ID: z.string().regex(INSTANCE_ID_PATTERN, 'must be 1 to 64 letters, digits, dots, dashes, underscores or colons').optional(),
  LEASE_TTL_SECONDS: z.coerce.number().min(1).max(3600).default(15),
  EVENTS_RETENTION_DAYS: z.coerce.number().nonnegative().default(7),
  DEAD_LETTERS_RETENTION_DAYS: z.coerce.number().nonnegative().default(30),
  RECORDS_RETENTION_DAYS: z.coerce.number().nonnegative().default(0),
  ANONCREDS_SAFE_PRIME_RESERVE: z.coerce.number().int().min(0).max(64).default(4),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.string().default('development'),
})

/** Minimum length of AGENT_WALLET_KEY and TUNNEL_SECRET: 128 bits as hex or 22+ chars of base64. */
const MIN_SECRET_LENGTH = 22

/**
 * Builds the configuration from `env`.
 * @returns the config and `notices`: lines to print at start-up (for example "generated a dev wallet key").
 * @throws ConfigError naming every invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): { config: AgentNodeConfig; notices: string[] } {
  // Empty strings mean "unset", as in most .env tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const parsed = Env.safeParse(present)
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`))
  }
  const e = parsed.data
  const problems: string[] = []
  const notices: string[] = []
  const production = e.NODE_ENV === 'production'

  const publicDid = resolvePublicDid(e, problems, notices)
  const publicUrl = (
    e.PUBLIC_API_BASE_URL ?? (publicDid ? `${schemeFor(publicDid.host)}://${publicDid.host}` : `http://localhost:${e.PUBLIC_PORT}`)
  ).replace(/\/+$/, '')
  if (publicUrl.startsWith('http:') && schemeFor(new URL(publicUrl).host) === 'https') {
    notices.push(
      `PUBLIC_API_BASE_URL is plain http on a non-loopback host: others resolve the public DID over https only (https://${new URL(publicUrl).host}/.well-known/)`,
    )
  }
  const endpoints = e.AGENT_ENDPOINTS
    ? e.AGENT_ENDPOINTS.split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [publicUrl.replace(/^http/, 'ws'), publicUrl]
  for (const endpoint of endpoints) {
    if (!/^(wss?|https?):\/\/[^\s]+$/.test(endpoint)) problems.push(`AGENT_ENDPOINTS: '${endpoint}' is not a ws(s) or http(s) URL`)
  }

  const dataDir = resolve(e.DATA_DIR)
  let walletKey = e.AGENT_WALLET_KEY
  if (walletKey !== undefined && walletKey.length < MIN_SECRET_LENGTH) {
    problems.push(`AGENT_WALLET_KEY: must be at least ${MIN_SECRET_LENGTH} characters`)
  }
  if (walletKey === undefined) {
    if (production) {
      problems.push('AGENT_WALLET_KEY: required when NODE_ENV=production (private keys are encrypted with it)')
    } else {
      walletKey = devWalletKey(dataDir)
      notices.push(
        `AGENT_WALLET_KEY is not set: using the development key in ${join(dataDir, 'dev-wallet-key')} (never do this in production)`,
      )
    }
  }

  const adminApiTokens = (e.ADMIN_API_TOKENS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (adminApiTokens.some((token) => token.length < MIN_SECRET_LENGTH)) {
    problems.push(`ADMIN_API_TOKENS: each token must be at least ${MIN_SECRET_LENGTH} characters`)
  }
  if (adminApiTokens.length === 0 && !/^(127\.|::1$|localhost$)/.test(e.ADMIN_HOST)) {
    notices.push(
      `ADMIN_HOST is ${e.ADMIN_HOST} and ADMIN_API_TOKENS is not set: anyone who reaches that address controls the agent; keep it on a private network`,
    )
  }

  let tunnel: AgentNodeConfig['tunnel']
  if (e.CONTROLLER_TUNNEL_URL && !e.TUNNEL_SECRET) problems.push('TUNNEL_SECRET: required when CONTROLLER_TUNNEL_URL is set')
  else if (!e.CONTROLLER_TUNNEL_URL && e.TUNNEL_SECRET) problems.push('CONTROLLER_TUNNEL_URL: required when TUNNEL_SECRET is set')
  else if (e.CONTROLLER_TUNNEL_URL && e.TUNNEL_SECRET) {
    if (e.TUNNEL_SECRET.length < MIN_SECRET_LENGTH) problems.push(`TUNNEL_SECRET: must be at least ${MIN_SECRET_LENGTH} characters`)
    if (production && e.CONTROLLER_TUNNEL_URL.startsWith('ws:') && !/^ws:\/\/(localhost|127\.|\[::1\])/.test(e.CONTROLLER_TUNNEL_URL)) {
      problems.push('CONTROLLER_TUNNEL_URL: use wss:// in production')
    }
    tunnel = { url: e.CONTROLLER_TUNNEL_URL, secret: e.TUNNEL_SECRET }
  }
  const outboundAllowedNetworks = (e.OUTBOUND_ALLOWED_NETWORKS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  try {
    parseNetworks(outboundAllowedNetworks)
  } catch (error) {
    problems.push(`OUTBOUND_ALLOWED_NETWORKS: ${(error as Error).message}`)
  }
  let signingKey: Buffer | undefined
  if (e.EVENTS_SIGNING_SECRET) {
    try {
      signingKey = parseSigningSecret(e.EVENTS_SIGNING_SECRET)
    } catch (error) {
      problems.push(`EVENTS_SIGNING_SECRET: ${(error as Error).message}`)
    }
  }
  const adminAccess: AdminAccessPolicy = {
    allowedHosts: listSetting('ADMIN_ALLOWED_HOSTS', e.ADMIN_ALLOWED_HOSTS, normalizeHost, problems) ?? defaultAllowedHosts(e.ADMIN_HOST),
    allowedOrigins: listSetting('ADMIN_ALLOWED_ORIGINS', e.ADMIN_ALLOWED_ORIGINS, normalizeOrigin, problems) ?? [],
  }
  if (!e.ADMIN_ALLOWED_HOSTS && ['0.0.0.0', '::', '[::]'].includes(e.ADMIN_HOST)) {
    notices.push(
      `ADMIN_HOST ${e.ADMIN_HOST} listens on every interface, but only requests naming ${(adminAccess.allowedHosts as string[]).join(', ')} are served: list the names clients use in ADMIN_ALLOWED_HOSTS`,
    )
  }
  let mcpStdioServers: StdioServerConfig[] = []
  try {
    const stdio = loadStdioServers(present)
    mcpStdioServers = stdio.servers
    notices.push(...stdio.warnings.map((warning) => `agent pack: ${warning}`))
  } catch (error) {
    problems.push(`AGENT_PACK_PATH: ${(error as Error).message}`)
  }
  if (problems.length > 0) throw new ConfigError(problems)

  return {
    config: {
      label: e.AGENT_LABEL,
      invitationImageUrl: e.AGENT_INVITATION_IMAGE_URL,
      publicPort: e.PUBLIC_PORT,
      publicUrl,
      publicDid: publicDid ?? defaultPublicDid(publicUrl),
      endpoints,
      invitationBaseUrl: e.AGENT_INVITATION_BASE_URL ?? `${publicUrl}/qr`,
      adminHost: e.ADMIN_HOST,
      adminPort: e.ADMIN_PORT,
      adminAccess,
      adminBody: { maxBodyBytes: e.ADMIN_MAX_BODY_BYTES, maxJsonDepth: e.ADMIN_MAX_JSON_DEPTH },
      envelopeLimits: { maxBytes: e.DIDCOMM_MAX_ENVELOPE_BYTES, maxRecipients: e.DIDCOMM_MAX_RECIPIENTS },
      adminApiTokens,
      enableApiExplorer: e.ENABLE_PUBLIC_API_EXPLORER,
      eventsBaseUrl: e.EVENTS_BASE_URL?.replace(/\/+$/, ''),
      eventDelivery: {
        signingKey,
        retry: { maxAttempts: e.EVENTS_MAX_ATTEMPTS, baseDelayMs: e.EVENTS_RETRY_BASE_MS, maxDelayMs: e.EVENTS_RETRY_MAX_MS },
        timeoutMs: e.EVENTS_TIMEOUT_MS,
      },
      walletKey: walletKey!,
      dataDir,
      databaseUrl: e.DATABASE_URL,
      tunnel,
      mcpStdioServers,
      outboundAllowedNetworks,
      shortUrlExpirySeconds: e.SHORT_URL_EXPIRY_SECONDS,
      readyMaxOutboxLagSeconds: e.READY_MAX_OUTBOX_LAG_SECONDS,
      cluster: { instanceId: e.INSTANCE_ID, leaseTtlSeconds: e.LEASE_TTL_SECONDS },
      retention: {
        eventsDays: e.EVENTS_RETENTION_DAYS,
        deadLettersDays: e.DEAD_LETTERS_RETENTION_DAYS,
        recordsDays: e.RECORDS_RETENTION_DAYS,
      },
      safePrimeReserve: e.ANONCREDS_SAFE_PRIME_RESERVE,
      logLevel: e.LOG_LEVEL,
      production,
    },
    notices,
  }
}

/**
 * AGENT_PUBLIC_DID checked against PUBLIC_API_BASE_URL: the DID's documents are served by this
 * agent's public interface at `/.well-known/`, so the DID's host must be the public URL's host
 * and the public URL must have no path. Without PUBLIC_API_BASE_URL the public URL is derived from
 * the DID (`https://<host>`, `http://` for loopback hosts).
 * @returns the parsed DID, or undefined when AGENT_PUBLIC_DID is unset or invalid (invalid adds a problem).
 */
function resolvePublicDid(e: z.infer<typeof Env>, problems: string[], notices: string[]): ConfiguredPublicDid | undefined {
  if (e.AGENT_PUBLIC_DID === undefined) {
    if (e.PUBLIC_API_BASE_URL && new URL(e.PUBLIC_API_BASE_URL).pathname.replace(/\/+$/, '') !== '') {
      notices.push(
        'PUBLIC_API_BASE_URL has a path: the default public DID is served at /.well-known/ of its origin; route it there or set AGENT_PUBLIC_DID',
      )
    }
    return undefined
  }
  let did: ConfiguredPublicDid
  try {
    did = parseConfiguredDid(e.AGENT_PUBLIC_DID)
  } catch (error) {
    problems.push(`AGENT_PUBLIC_DID: ${(error as Error).message}`)
    return undefined
  }
  if (e.PUBLIC_API_BASE_URL) {
    const url = new URL(e.PUBLIC_API_BASE_URL)
    if (url.host !== did.host) {
      problems.push(
        `AGENT_PUBLIC_DID: host '${did.host}' differs from PUBLIC_API_BASE_URL's '${url.host}' (the DID documents are served by the public interface)`,
      )
    } else if (url.pathname.replace(/\/+$/, '') !== '') {
      problems.push('AGENT_PUBLIC_DID: PUBLIC_API_BASE_URL must have no path (the DID documents are served at /.well-known/)')
    }
  }
  return did
}

/**
 * A comma-separated list setting: `'*'` (anything), or each entry normalized by `normalize`
 * (an entry it refuses adds a problem naming `name`); undefined when unset.
 */
function listSetting(
  name: string,
  value: string | undefined,
  normalize: (entry: string) => string | undefined,
  problems: string[],
): string[] | '*' | undefined {
  if (value === undefined) return undefined
  if (value.trim() === '*') return '*'
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const normalized = entries.map((entry) => normalize(entry))
  for (const [i, entry] of entries.entries()) {
    if (normalized[i] === undefined) problems.push(`${name}: '${entry}' is not valid`)
  }
  return normalized.filter((entry): entry is string => entry !== undefined)
}

/** `did:webvh:<host of publicUrl>`, or `did:web:` when that host is an IP address (did:webvh forbids them). */
function defaultPublicDid(publicUrl: string): ConfiguredPublicDid {
  const { host, hostname } = new URL(publicUrl)
  const method = isIpAddress(hostname) ? 'web' : 'webvh'
  return { method, host, configured: didFor(method, host) }
}

/** Reads, or creates once (mode 0600), the development wallet key in `dataDir`. */
function devWalletKey(dataDir: string): string {
  const file = join(dataDir, 'dev-wallet-key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const key = randomBytes(32).toString('base64url')
  writeFileSync(file, `${key}\n`, { mode: 0o600 })
  return key
}
