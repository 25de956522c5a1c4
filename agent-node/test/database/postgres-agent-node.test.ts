/**
 * A whole agent-node on PostgreSQL (`DATABASE_URL`), in process, with the real Credo wallet peer
 * over WebSocket on loopback: DID Exchange, a message each way, a restart on the same database,
 * and the connection and the agent's keys still there afterwards (the agent unpacks and packs
 * messages on the old connection). Nothing is written to the SQLite file in `DATA_DIR`.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAgentNode, type AgentNode } from '../../src/app.ts'
import { loadConfig } from '../../src/config/index.ts'
import { selectRows } from '../../src/database/dialect.ts'
import { openDatabase } from '../../src/database/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts'
import { freePort } from '@parley/shared/testing/free-port'
import { usePostgresTestDatabase } from '../support/temp-databases.ts'

describe('agent-node on DATABASE_URL (PostgreSQL)', () => {
  const server = usePostgresTestDatabase()
  let receiver: EventReceiver
  let wallet: WalletPeer
  let node: AgentNode | undefined
  let dataDir: string
  let env: Record<string, string>
  let walletConnectionId: string
  let agentConnectionId: string

  const start = async () => {
    node = await startAgentNode(loadConfig(env).config, createLogger('silent'))
    return node
  }
  const admin = (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${node!.adminPort}${path}`, init)
  const sendFromAgent = async (content: string) => {
    const response = await admin('/v1/message', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'text', connectionId: agentConnectionId, content }),
    })
    expect(response.status).toBe(200)
  }
  const receivedByAgent = (content: string) =>
    receiver.waitFor((event) => {
      const message = event.body.message as { content?: string; connectionId?: string } | undefined
      return event.topic === 'message-received' && message?.content === content
    })

  beforeAll(async () => {
    receiver = await startEventReceiver()
    dataDir = mkdtempSync(join(tmpdir(), 'parley-pg-node-'))
    const publicPort = await freePort()
    env = {
      DATA_DIR: dataDir,
      AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
      PUBLIC_PORT: String(publicPort),
      ADMIN_PORT: String(await freePort()),
      AGENT_ENDPOINTS: `ws://127.0.0.1:${publicPort}`,
      EVENTS_BASE_URL: receiver.url,
    }
    wallet = await WalletPeer.create({ label: 'pg wallet', logger: createLogger('silent', 'wallet') })
  })

  afterAll(async () => {
    await wallet?.stop()
    await node?.stop()
    await receiver?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('starts on the database, completes DID Exchange with the wallet and exchanges a message each way', async () => {
    env.DATABASE_URL = server.url
    await start()
    const { url } = (await (await admin('/v1/invitation')).json()) as { url: string }
    walletConnectionId = await wallet.connect(url)
    const completed = await receiver.waitFor((e) => e.topic === 'connection-state-updated' && e.body.state === 'completed')
    agentConnectionId = completed.body.connectionId as string

    await wallet.sendText(walletConnectionId, 'hello postgres')
    expect((await receivedByAgent('hello postgres')).body.message).toMatchObject({ connectionId: agentConnectionId })
    const reply = wallet.nextText((message) => message.content === 'hello wallet')
    await sendFromAgent('hello wallet')
    expect((await reply).connectionId).toBe(walletConnectionId)
  })

  it('keeps everything in PostgreSQL: the records and keys are there, no SQLite file is made', async () => {
    const database = await openDatabase(server.url)
    try {
      const [records] = await selectRows<{ n: string }>(database, sql`SELECT COUNT(*) AS n FROM credo_records`)
      const [keys] = await selectRows<{ n: string }>(database, sql`SELECT COUNT(*) AS n FROM kms_keys`)
      expect(Number(records?.n)).toBeGreaterThan(0)
      expect(Number(keys?.n)).toBeGreaterThan(0)
    } finally {
      await database.close()
    }
    expect(existsSync(join(dataDir, 'agent.sqlite'))).toBe(false)
  })

  it('after a restart on the same database still has the connection and its keys', async () => {
    await node!.stop()
    node = undefined
    await start()

    const connection = (await (await admin(`/v1/connections/${agentConnectionId}`)).json()) as Record<string, unknown>
    expect(connection).toMatchObject({ id: agentConnectionId, state: 'completed', theirLabel: 'pg wallet' })

    // unpacking needs the agent's stored private key, packing the stored connection and DIDs
    await wallet.sendText(walletConnectionId, 'still there?')
    expect((await receivedByAgent('still there?')).body.message).toMatchObject({ connectionId: agentConnectionId })
    const reply = wallet.nextText((message) => message.content === 'yes, after the restart')
    await sendFromAgent('yes, after the restart')
    expect((await reply).connectionId).toBe(walletConnectionId)
  })
})
