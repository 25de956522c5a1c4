/**
 * A start-up that fails after the database opened (the admin port is taken, the last step)
 * closes everything it started: in process, the PostgreSQL pool has no connection left and the
 * public port is free again; as a process (`main.ts`), agent-node exits by itself with status 1,
 * which it only does when no handle (database, server, timer) is left open.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAgentNode } from '../../src/app.ts'
import { loadConfig } from '../../src/config/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { freePort } from '@parley/shared/testing/free-port'
import { usePostgresTestDatabase } from '../support/temp-databases.ts'

/** agent-node's package folder, where `npm start` runs `src/main.ts`. */
const AGENT_NODE_DIR = fileURLToPath(new URL('../..', import.meta.url))

/** Listens on a free loopback port, so agent-node cannot. */
async function occupyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as { port: number }).port, server }
}

/** Resolves once `port` can be bound on 127.0.0.1 (and releases it), rejects otherwise. */
function bindable(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()))
  })
}

describe('a start-up that fails after the database opened', () => {
  const database = usePostgresTestDatabase()
  let busy: { port: number; server: Server }
  let dataDir: string
  beforeAll(async () => {
    busy = await occupyPort()
    dataDir = mkdtempSync(join(tmpdir(), 'parley-startup-failure-'))
  })
  afterAll(async () => {
    await new Promise((resolve) => busy?.server.close(resolve))
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('closes the database and the public server before rejecting', async () => {
    const publicPort = await freePort()
    const { config } = loadConfig({
      DATA_DIR: dataDir,
      AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
      DATABASE_URL: database.url,
      PUBLIC_PORT: String(publicPort),
      AGENT_ENDPOINTS: `ws://127.0.0.1:${publicPort}`,
      ADMIN_PORT: String(busy.port),
    })
    await expect(startAgentNode(config, createLogger('silent'))).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/)

    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const { rows } = await client.query<{ count: string }>(
        'SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
      expect(Number(rows[0]!.count)).toBe(0)
    } finally {
      await client.end()
    }
    await bindable(publicPort)
  })

  it('lets agent-node (main.ts) exit by itself with status 1', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: AGENT_NODE_DIR,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        DATA_DIR: join(dataDir, 'process'),
        AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
        PUBLIC_PORT: String(await freePort()),
        ADMIN_PORT: String(busy.port),
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    // a handle left open keeps the process alive: it is killed after 30 s and the test fails
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    const status = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    clearTimeout(killer)
    expect(output).toContain('agent-node failed to start')
    expect(output).toContain('EADDRINUSE')
    expect(status).toBe(1)
  }, 60_000)
})
