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

  it('refuses to start in production without AGENT_WALLET_KEY', () => {
    expect(problems({ NODE_ENV: 'production', DATA_DIR: dataDir() })).toEqual([expect.stringMatching(/^AGENT_WALLET_KEY: required/)])
  })

  it('refuses a short wallet key', () => {
    expect(problems({ AGENT_WALLET_KEY: 'short', DATA_DIR: dataDir() })).toEqual([expect.stringMatching(/^AGENT_WALLET_KEY: must be at least/)])
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

  it('names every invalid variable', () => {
    const found = problems({ ADMIN_PORT: 'abc', EVENTS_BASE_URL: 'not a url', CONTROLLER_TUNNEL_URL: 'http://x/tunnel', TUNNEL_SECRET: strongKey })
    expect(found.map((p) => p.split(':')[0]).sort()).toEqual(['ADMIN_PORT', 'CONTROLLER_TUNNEL_URL', 'EVENTS_BASE_URL'])
  })

  it('short URLs live 7 days unless SHORT_URL_EXPIRY_SECONDS says otherwise (a positive whole number)', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey }).config.shortUrlExpirySeconds).toBe(7 * 24 * 3600)
    expect(loadConfig({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey, SHORT_URL_EXPIRY_SECONDS: '600' }).config.shortUrlExpirySeconds).toBe(600)
    expect(problems({ DATA_DIR: dataDir(), AGENT_WALLET_KEY: strongKey, SHORT_URL_EXPIRY_SECONDS: '0' })[0]).toMatch(/^SHORT_URL_EXPIRY_SECONDS:/)
  })
})
