/**
 * Backup and restore as docs/operations.md describes them for SQLite, on the real stack
 * (agent-node as a process, the worker in workerd, a Credo wallet, the scripted LLM): a wallet
 * chats; the database is backed up while agent-node runs (`VACUUM INTO`, a consistent copy in
 * one transaction); agent-node is stopped and a fresh one started on an empty data folder holding
 * only the backup, with the same AGENT_WALLET_KEY and endpoint; the wallet chats on over the
 * connection it already had, and the restored agent-node knows that connection.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'libsql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { sampleValue, scrapeUntil } from '../../agent-node/test/support/prometheus.ts'
import { freePort, startAgentNodeProcess, startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

describe('a SQLite backup restored into a fresh agent-node', () => {
  let llm: ScriptedLlm
  let stack: LocalStack
  let wallet: WalletPeer
  let original: string
  let restored: string
  let agentEnv: Record<string, string>

  beforeAll(async () => {
    llm = await startScriptedLlm({ reply: (messages) => `echo: ${messages.at(-1)?.content}` })
    original = mkdtempSync(join(tmpdir(), 'parley-e2e-backup-'))
    restored = mkdtempSync(join(tmpdir(), 'parley-e2e-restored-'))
    // what a restore keeps besides the database: the wallet key and the public endpoint
    agentEnv = { AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), PUBLIC_PORT: String(await freePort()), LOG_LEVEL: 'warn' }
    stack = await startLocalStack({
      workerVars: { COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'test-key', COMPAT_MODEL: 'scripted-model' },
      agentEnv: { ...agentEnv, DATA_DIR: original },
    })
    // its pickup requests fail while agent-node is down: expected, not worth an error line each
    wallet = await WalletPeer.create({ label: 'backup wallet', logger: createLogger('fatal', 'wallet') })
  })

  afterAll(async () => {
    await wallet?.stop()
    await stack?.stop()
    await llm?.close()
    for (const dir of [original, restored]) if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('chats on over the existing connection after the restore', async () => {
    const invitation = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    const connectionId = await wallet.connect(invitation.url)
    const before = wallet.nextText((m) => m.content === 'echo: before the backup')
    await wallet.sendText(connectionId, 'before the backup')
    await before
    // every event delivered to the worker, so the backup is the state it last heard of
    await scrapeUntil(
      `${stack.agent.adminUrl}/metrics`,
      (s) => sampleValue(s, 'parley_outbox_pending_events', { subscriber: 'tunnel' }) === 0,
    )
    const [agentConnection] = (await (await fetch(`${stack.agent.adminUrl}/v1/connections`)).json()) as { id: string }[]

    // online backup of the running agent-node's database
    const source = new Database(join(original, 'agent.sqlite'))
    try {
      source.prepare('VACUUM INTO ?').run(join(restored, 'agent.sqlite'))
    } finally {
      source.close()
    }
    await stack.agent.stop()
    expect(readdirSync(restored)).toEqual(['agent.sqlite'])

    stack.agent = await startAgentNodeProcess({
      env: {
        CONTROLLER_TUNNEL_URL: `${stack.worker.url.replace(/^http/, 'ws')}/tunnel`,
        TUNNEL_SECRET: stack.tunnelSecret,
        ...agentEnv,
        DATA_DIR: restored,
      },
    })
    const connection = (await (await fetch(`${stack.agent.adminUrl}/v1/connections/${agentConnection!.id}`)).json()) as { state: string }
    expect(connection.state).toBe('completed')
    const after = wallet.nextText((m) => m.content === 'echo: after the restore', 60_000)
    await wallet.sendText(connectionId, 'after the restore')
    expect((await after).content).toBe('echo: after the restore')
  }, 180_000)
})
