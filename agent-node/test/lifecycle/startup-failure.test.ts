/**
 * A start-up that fails after the database opened (the admin port is taken, the last step; a
 * database migration, among the first) closes everything it started: in process, the PostgreSQL
 * pool has no connection left and the public port is free again; as a process (`main.ts`),
 * agent-node exits by itself with status 1, which it only does when no handle (database, server,
 * timer) is left open.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAgentNode } from '../../src/app.ts'
import { loadConfig } from '../../src/config/index.ts'
import { applySchema, execute, MigrationError } from '../../src/database/dialect.ts'
import { openDatabase } from '../../src/database/index.ts'
import { OUTBOX_SCHEMA } from '../../src/events/outbox/schema.ts'
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

/** How many connections other than this check's own are open to the database at `url`. */
async function openConnections(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ count: string }>(
      'SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    )
    return Number(rows[0]!.count)
  } finally {
    await client.end()
  }
}

/** Records version 99 of the outbox tables at `location`, as a newer agent-node would have. */
async function markNewerRelease(location: string): Promise<void> {
  const database = await openDatabase(location)
  try {
    await applySchema(database, { name: 'event_outbox', steps: [] })
    await execute(database, sql`INSERT INTO schema_migrations (store, version, applied_at) VALUES ('event_outbox', 99, 0)`)
  } finally {
    await database.close()
  }
}

/** What main.ts prints when the start fails. */
const FAILED_TO_START = 'agent-node failed to start'

/**
 * Starts `agent-node/src/main.ts` with `env`; resolves with its exit status and stderr. It is
 * killed 30 s after it reported the failure (a handle was left open), or 100 s after it started
 * if it never does: the grace counts from the report, so a slow start on a loaded machine is not
 * taken for a hang.
 */
async function runMain(env: Record<string, string>): Promise<{ status: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: AGENT_NODE_DIR,
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const kill = () => child.kill('SIGKILL')
  const timers = [setTimeout(kill, 100_000)]
  let output = ''
  child.stderr.on('data', (chunk: Buffer) => {
    const reported = output.includes(FAILED_TO_START)
    output += chunk.toString()
    if (!reported && output.includes(FAILED_TO_START)) timers.push(setTimeout(kill, 30_000))
  })
  const status = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  for (const timer of timers) clearTimeout(timer)
  return { status, output }
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

    expect(await openConnections(database.url)).toBe(0)
    await bindable(publicPort)
  })

  it('lets agent-node (main.ts) exit by itself with status 1', async () => {
    const { status, output } = await runMain({
      DATA_DIR: join(dataDir, 'process'),
      AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
      PUBLIC_PORT: String(await freePort()),
      ADMIN_PORT: String(busy.port),
    })
    expect(output).toContain(FAILED_TO_START)
    expect(output).toContain('EADDRINUSE')
    expect(status).toBe(1)
  }, 120_000)
})

describe('a start-up whose database migration fails', () => {
  const database = usePostgresTestDatabase()
  let dataDir: string
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-migration-failure-'))
  })
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('on PostgreSQL, rejects naming the tables and versions, with no connection left', async () => {
    await markNewerRelease(database.url)
    const { config } = loadConfig({
      DATA_DIR: dataDir,
      AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
      DATABASE_URL: database.url,
      PUBLIC_PORT: String(await freePort()),
      ADMIN_PORT: String(await freePort()),
    })
    const started = startAgentNode(config, createLogger('silent'))
    await expect(started).rejects.toBeInstanceOf(MigrationError)
    await expect(started).rejects.toThrow(
      `version 99 of the event_outbox tables, newer than this agent-node knows (${OUTBOX_SCHEMA.steps.length})`,
    )
    expect(await openConnections(database.url)).toBe(0)
  })

  it('on SQLite, lets agent-node (main.ts) exit by itself with status 1 and the reason', async () => {
    const processDir = join(dataDir, 'process')
    await markNewerRelease(join(processDir, 'agent.sqlite'))
    const { status, output } = await runMain({
      DATA_DIR: processDir,
      AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
      PUBLIC_PORT: String(await freePort()),
      ADMIN_PORT: String(await freePort()),
    })
    expect(output).toContain(FAILED_TO_START)
    expect(output).toContain('version 99 of the event_outbox tables')
    expect(status).toBe(1)
  }, 120_000)
})
