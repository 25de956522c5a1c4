/**
 * The production bundle (`npm run build`, `agent-node/scripts/build.ts`) runs as agent-node: built
 * into `agent-node/dist/`, started as the Dockerfile starts it, it answers on both ports, creates a
 * credential type (the AnonCreds engine registered with the one `@hyperledger/anoncreds-shared`
 * that `@credo-ts/anoncreds` reads, and the key-generation worker `dist/worker.mjs` found beside
 * the bundle), checkpoints its database from the thread `dist/checkpoint-worker.mjs` and stops cleanly on SIGTERM; a failed start names the TypeScript source in its
 * stack trace (source maps).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AGENT_NODE_ARGS, type AgentNodeProcess, launch, startAgentNodeProcess } from '../../../scripts/local-stack.ts'
import { buildAgentNode } from '../../scripts/build.ts'

describe('agent-node production bundle', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bundle-'))
  const env = { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'info' }
  let agent: AgentNodeProcess

  beforeAll(async () => {
    await buildAgentNode()
    agent = await startAgentNodeProcess({ env, form: 'bundle' })
  }, 120_000)

  afterAll(async () => {
    await agent?.stop(30_000)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers on the admin and the public port', async () => {
    expect((await fetch(`${agent.adminUrl}/readyz`)).status).toBe(200)
    expect((await fetch(`${agent.publicUrl}/health`)).status).toBe(200)
  })

  it('copies its WAL into the database file from the checkpoint thread beside the bundle', async () => {
    // the agent's own connection checkpoints only past thousands of pages: without the thread,
    // the file would keep its first page until the agent stops
    const file = join(dataDir, 'agent.sqlite')
    await expect.poll(() => statSync(file).size, { timeout: 10_000, interval: 100 }).toBeGreaterThan(4_096)
    expect(agent.output()).not.toContain('WAL checkpoint')
  })

  it('creates a credential type: AnonCreds engine and key-generation worker', async () => {
    const response = await fetch(`${agent.adminUrl}/v1/credential-types`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bundle', version: '1.0', attributes: ['name'], supportRevocation: false }),
    })
    const body = (await response.json()) as { id: string; schemaId: string }
    expect(response.status, JSON.stringify(body)).toBe(201)
    expect(body.id).toContain('/credDef/')
  }, 120_000)

  it('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => agent.child.once('exit', (code) => resolve(code)))
    agent.child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(agent.output()).toContain('"msg":"stopping"')
  }, 60_000)

  it('names the TypeScript source in the stack trace of a failed start', async () => {
    const failing = launch({
      name: 'agent-node',
      command: process.execPath,
      args: AGENT_NODE_ARGS.bundle,
      env: { ...env, DATABASE_URL: 'postgres://parley:unused@127.0.0.1:1/parley' },
    })
    const status = await new Promise<number | null>((resolve) => failing.child.once('exit', (code) => resolve(code)))
    expect(status).toBe(1)
    expect(failing.output()).toMatch(/at openPostgres \([^)]*agent-node\/src\/database\/index\.ts:\d+:\d+\)/)
  }, 60_000)
})
