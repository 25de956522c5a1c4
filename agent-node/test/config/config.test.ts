import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/index.ts'

const dataDir = () => mkdtempSync(join(tmpdir(), 'parley-config-'))
const strongKey = 'k'.repeat(32)

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('loadConfig', () => {
  it('applies the spec defaults: admin on 127.0.0.1:3000, public on 3001, endpoints from the public URL', () => {
    const { config } = loadConfig({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey })
    expect(config).toMatchObject({
      adminHost: '127.0.0.1',
      adminPort: 3000,
      publicPort: 3001,
      publicUrl: 'http://localhost:3001',
      endpoints: ['ws://localhost:3001', 'http://localhost:3001'],
      invitationBaseUrl: 'http://localhost:3001/qr',
      enableApiExplorer: false,
      label: 'Parley',
    })
  })

  it('derives the public DID from the public URL: did:webvh:<host>, did:web: for an IP address', () => {
    const base = { DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }
    expect(loadConfig(base).config.publicDid).toEqual({ method: 'webvh', host: 'localhost:3001', configured: 'did:webvh:localhost%3A3001' })
    expect(loadConfig({ ...base, PUBLIC_API_BASE_URL: 'https://agent.example.com' }).config.publicDid.configured).toBe(
      'did:webvh:agent.example.com',
    )
    const lan = loadConfig({ ...base, PUBLIC_API_BASE_URL: 'http://192.168.1.5:3001' })
    expect(lan.config.publicDid.configured).toBe('did:web:192.168.1.5%3A3001')
    expect(lan.notices.join('\n')).toMatch(/resolve the public DID over https only/)
  })

  it('with AGENT_PUBLIC_DID alone, derives the public URL and endpoints from it (https, http for loopback)', () => {
    const base = { DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }
    expect(loadConfig({ ...base, AGENT_PUBLIC_DID: 'did:webvh:agent.example.com' }).config).toMatchObject({
      publicUrl: 'https://agent.example.com',
      endpoints: ['wss://agent.example.com', 'https://agent.example.com'],
      publicDid: { method: 'webvh', host: 'agent.example.com' },
    })
    expect(loadConfig({ ...base, AGENT_PUBLIC_DID: 'did:web:localhost%3A4000' }).config.publicUrl).toBe('http://localhost:4000')
  })

  it('refuses a bad AGENT_PUBLIC_DID, or one whose host is not the public URL host, naming the variable', () => {
    const base = { DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }
    expect(problems({ ...base, AGENT_PUBLIC_DID: 'did:key:z6Mk' })).toEqual([expect.stringMatching(/^AGENT_PUBLIC_DID: .*not did:web/)])
    expect(problems({ ...base, AGENT_PUBLIC_DID: 'did:webvh:agent.example.com:path' })).toEqual([
      expect.stringMatching(/^AGENT_PUBLIC_DID: .*no path/),
    ])
    expect(
      problems({ ...base, AGENT_PUBLIC_DID: 'did:webvh:agent.example.com', PUBLIC_API_BASE_URL: 'https://other.example.com' }),
    ).toEqual([expect.stringMatching(/^AGENT_PUBLIC_DID: host 'agent.example.com' differs from PUBLIC_API_BASE_URL's 'other.example.com'/)])
    expect(
      problems({ ...base, AGENT_PUBLIC_DID: 'did:webvh:agent.example.com', PUBLIC_API_BASE_URL: 'https://agent.example.com/parley' }),
    ).toEqual([expect.stringMatching(/^AGENT_PUBLIC_DID: PUBLIC_API_BASE_URL must have no path/)])
  })

  it('refuses to start in production without AGENT_WALLET_KEY', () => {
    expect(problems({ NODE_ENV: 'production', DATA_DIR: dataDir() })).toEqual([expect.stringMatching(/^AGENT_WALLET_KEY: required/)])
  })

  it('refuses a short wallet key', () => {
    expect(problems({ AGENT_WALLET_KEY: 'short', DATA_DIR: dataDir() })).toEqual([
      expect.stringMatching(/^AGENT_WALLET_KEY: must be at least/),
    ])
  })

  it('in development generates one wallet key, keeps it private, reuses it and says so', () => {
    const dir = dataDir()
    const first = loadConfig({ DATA_DIR: dir })
    const second = loadConfig({ DATA_DIR: dir })
    expect(first.config.walletKey).toBe(second.config.walletKey)
    expect(first.config.walletKey.length).toBeGreaterThanOrEqual(32)
    expect(first.notices.join('\n')).toMatch(/AGENT_WALLET_KEY is not set/)
    expect(readFileSync(join(dir, 'dev-wallet-key'), 'utf8').trim()).toBe(first.config.walletKey)
    expect(statSync(join(dir, 'dev-wallet-key')).mode & 0o077).toBe(0)
  })

  it('needs CONTROLLER_TUNNEL_URL and TUNNEL_SECRET together', () => {
    expect(problems({ AGENT_WALLET_KEY: strongKey, DATA_DIR: dataDir(), CONTROLLER_TUNNEL_URL: 'ws://127.0.0.1:8787/tunnel' })).toEqual([
      expect.stringMatching(/^TUNNEL_SECRET: required/),
    ])
    expect(problems({ AGENT_WALLET_KEY: strongKey, DATA_DIR: dataDir(), TUNNEL_SECRET: strongKey })).toEqual([
      expect.stringMatching(/^CONTROLLER_TUNNEL_URL: required/),
    ])
  })

  it('takes a PostgreSQL DATABASE_URL and refuses any other kind of URL', () => {
    const url = 'postgres://parley:secret@db.internal:5432/parley'
    expect(loadConfig({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }).config.databaseUrl).toBeUndefined()
    expect(loadConfig({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey, DATABASE_URL: url }).config.databaseUrl).toBe(url)
    const postgresql = 'postgresql://127.0.0.1/parley'
    expect(loadConfig({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey, DATABASE_URL: postgresql }).config.databaseUrl).toBe(postgresql)
    for (const wrong of ['mysql://127.0.0.1/parley', 'file:./agent.sqlite', 'not a url']) {
      const found = problems({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey, DATABASE_URL: wrong })
      expect(found).toEqual(['DATABASE_URL: must be a postgres:// or postgresql:// URL'])
    }
  })

  it('names every invalid variable', () => {
    const found = problems({
      ADMIN_PORT: 'abc',
      EVENTS_BASE_URL: 'not a url',
      CONTROLLER_TUNNEL_URL: 'http://x/tunnel',
      TUNNEL_SECRET: strongKey,
    })
    expect(found.map((p) => p.split(':')[0]).sort()).toEqual(['ADMIN_PORT', 'CONTROLLER_TUNNEL_URL', 'EVENTS_BASE_URL'])
  })

  it('short URLs live 7 days unless SHORT_URL_EXPIRY_SECONDS says otherwise (a positive whole number)', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }).config.shortUrlExpirySeconds).toBe(7 * 24 * 3600)
    expect(
      loadConfig({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey, SHORT_URL_EXPIRY_SECONDS: '600' }).config.shortUrlExpirySeconds,
    ).toBe(600)
    expect(problems({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey, SHORT_URL_EXPIRY_SECONDS: '0' })[0]).toMatch(
      /^SHORT_URL_EXPIRY_SECONDS:/,
    )
  })

  it('keeps records forever unless RECORDS_RETENTION_DAYS says otherwise (days, not negative)', () => {
    const base = { DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }
    expect(loadConfig(base).config.retention).toEqual({ eventsDays: 7, deadLettersDays: 30, recordsDays: 0 })
    expect(loadConfig({ ...base, RECORDS_RETENTION_DAYS: '90' }).config.retention.recordsDays).toBe(90)
    expect(problems({ ...base, RECORDS_RETENTION_DAYS: '-1' })[0]).toMatch(/^RECORDS_RETENTION_DAYS:/)
  })

  it('keeps 4 safe primes ready unless ANONCREDS_SAFE_PRIME_RESERVE says otherwise (0 turns it off, at most 64)', () => {
    const base = { DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }
    expect(loadConfig(base).config.safePrimeReserve).toBe(4)
    expect(loadConfig({ ...base, ANONCREDS_SAFE_PRIME_RESERVE: '0' }).config.safePrimeReserve).toBe(0)
    expect(loadConfig({ ...base, ANONCREDS_SAFE_PRIME_RESERVE: '10' }).config.safePrimeReserve).toBe(10)
    for (const bad of ['-1', '1.5', '65', 'many']) {
      expect(problems({ ...base, ANONCREDS_SAFE_PRIME_RESERVE: bad })[0]).toMatch(/^ANONCREDS_SAFE_PRIME_RESERVE:/)
    }
  })

  it('reads the network-facing limits and the admin allow-lists, with their defaults', () => {
    const base = { DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }
    expect(loadConfig(base).config).toMatchObject({
      adminAccess: { allowedHosts: ['localhost', '127.0.0.1', '[::1]'], allowedOrigins: [] },
      adminBody: { maxBodyBytes: 2 * 1024 * 1024, maxJsonDepth: 32 },
      envelopeLimits: { maxBytes: 5 * 1024 * 1024, maxRecipients: 8 },
    })
    const custom = loadConfig({
      ...base,
      ADMIN_HOST: '10.0.0.7',
      ADMIN_ALLOWED_ORIGINS: 'https://Console.example.com',
      DIDCOMM_MAX_RECIPIENTS: '4',
    })
    expect(custom.config.adminAccess).toEqual({
      allowedHosts: ['10.0.0.7', 'localhost', '127.0.0.1', '[::1]'],
      allowedOrigins: ['https://console.example.com'],
    })
    expect(custom.config.envelopeLimits.maxRecipients).toBe(4)
    expect(loadConfig({ ...base, ADMIN_ALLOWED_HOSTS: 'Agent.Internal, ::1' }).config.adminAccess.allowedHosts).toEqual([
      'agent.internal',
      '[::1]',
    ])
    expect(loadConfig({ ...base, ADMIN_ALLOWED_HOSTS: '*' }).config.adminAccess.allowedHosts).toBe('*')
    expect(loadConfig({ ...base, ADMIN_HOST: '0.0.0.0' }).notices.join('\n')).toMatch(/ADMIN_ALLOWED_HOSTS/)
  })

  it('names invalid allow-list entries', () => {
    const base = { DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }
    expect(problems({ ...base, ADMIN_ALLOWED_HOSTS: 'ok.example, bad host/path' })).toEqual([
      "ADMIN_ALLOWED_HOSTS: 'bad host/path' is not valid",
    ])
    expect(problems({ ...base, ADMIN_ALLOWED_ORIGINS: 'https://ok.example, https://ok.example/path' })).toEqual([
      "ADMIN_ALLOWED_ORIGINS: 'https://ok.example/path' is not valid",
    ])
  })
})
