/**
 * An in-process agent-node for tests: free loopback ports, a temporary data folder, a fresh
 * wallet key, user-supplied URLs allowed into loopback only (OUTBOUND_ALLOWED_NETWORKS), fast
 * event retries. `restart` stops it and starts it again on the same data (same wallet key).
 * Used by tests and by `bench/event-subscriptions.ts`.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DidCommConnectionEventTypes, DidCommDidExchangeState, type DidCommConnectionStateChangedEvent } from '@credo-ts/didcomm'
import { startAgentNode, type AgentNode } from '../../src/app.ts'
import { loadConfig } from '../../src/config/index.ts'
import { Subscription } from '../../src/events/subscriptions/model.ts'
import { createLogger } from '../../src/logging/index.ts'
import type { WalletPeer } from '../../src/terminal-wallet/WalletPeer.ts'
import { freePort } from '../../../scripts/local-stack.ts'

export interface TestAgentNode {
  readonly node: AgentNode
  /** `http://127.0.0.1:<admin port>` */
  readonly adminUrl: string
  /** Calls the admin API with a JSON body when `body` is given. */
  admin(path: string, init?: { method?: string; body?: unknown; rawBody?: string }): Promise<Response>
  /** `POST /v1/event-subscriptions` with `body`. @throws unless the answer is 201. */
  subscribe(body: Record<string, unknown>): Promise<Subscription>
  restart(): Promise<void>
  /** Stops agent-node and removes its data folder. */
  close(): Promise<void>
}

export async function startTestAgentNode(env: Record<string, string> = {}): Promise<TestAgentNode> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-events-'))
  const publicPort = await freePort()
  const { config } = loadConfig({
    DATA_DIR: dataDir,
    AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
    PUBLIC_PORT: String(publicPort),
    ADMIN_PORT: String(await freePort()),
    AGENT_ENDPOINTS: `ws://127.0.0.1:${publicPort}`,
    OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
    EVENTS_RETRY_BASE_MS: '20',
    EVENTS_RETRY_MAX_MS: '100',
    EVENTS_MAX_ATTEMPTS: '3',
    ...env,
  })
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent')
  let node = await startAgentNode(config, logger)
  const testNode: TestAgentNode = {
    get node() {
      return node
    },
    get adminUrl() {
      return `http://127.0.0.1:${node.adminPort}`
    },
    admin(path, init = {}) {
      const body = init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body))
      return fetch(`http://127.0.0.1:${node.adminPort}${path}`, {
        method: init.method ?? (body === undefined ? 'GET' : 'POST'),
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body,
      })
    },
    async subscribe(body) {
      const response = await testNode.admin('/v1/event-subscriptions', { body })
      if (response.status !== 201) throw new Error(`subscription refused: HTTP ${response.status} ${await response.text()}`)
      return Subscription.parse(await response.json())
    },
    async restart() {
      await node.stop()
      node = await startAgentNode(config, logger)
    },
    async close() {
      await node.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
  return testNode
}

/**
 * Connects `wallet` to the in-process agent-node `node` (admin API at `adminUrl`) through a fresh
 * `GET /v1/invitation` and waits for DID Exchange to complete on the agent's side.
 * @returns the connection's id on each side.
 */
export async function connectWallet(node: AgentNode, adminUrl: string, wallet: WalletPeer): Promise<{ connectionId: string; walletConnectionId: string }> {
  const { url, outOfBandId } = (await (await fetch(`${adminUrl}/v1/invitation`)).json()) as { url: string; outOfBandId: string }
  const completed = new Promise<string>((resolve) => {
    node.agent.events.on<DidCommConnectionStateChangedEvent>(DidCommConnectionEventTypes.DidCommConnectionStateChanged, ({ payload }) => {
      const record = payload.connectionRecord
      if (record.outOfBandId === outOfBandId && record.state === DidCommDidExchangeState.Completed) resolve(record.id)
    })
  })
  const walletConnectionId = await wallet.connect(url)
  return { connectionId: await completed, walletConnectionId }
}
