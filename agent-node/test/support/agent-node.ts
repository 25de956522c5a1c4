/**
 * An in-process agent-node for tests: free loopback ports, a temporary data folder, a fresh
 * wallet key, user-supplied URLs allowed into loopback only (OUTBOUND_ALLOWED_NETWORKS), fast
 * event retries. `restart` stops it and starts it again on the same data (same wallet key).
 * The one way tests (and `bench/event-subscriptions.ts`) start agent-node in process.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DidCommConnectionEventTypes, DidCommDidExchangeState, type DidCommConnectionStateChangedEvent } from '@credo-ts/didcomm'
import { startAgentNode, type AgentNode } from '../../src/app.ts'
import { loadConfig, type AgentNodeConfig } from '../../src/config/index.ts'
import { Subscription } from '../../src/events/subscriptions/model.ts'
import type { Dialect } from '../../src/database/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import type { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { freePort } from '@parley/shared/testing/free-port'
import { useSuiteResource } from './suite-resource.ts'
import { usePostgresTestDatabase } from './temp-databases.ts'

export interface TestAgentNode {
  readonly node: AgentNode
  /** The configuration it was started with (data folder, database URL, wallet key…). */
  readonly config: AgentNodeConfig
  /** `http://127.0.0.1:<admin port>` */
  readonly adminUrl: string
  /** Calls the admin API with a JSON body when `body` is given. */
  admin(path: string, init?: { method?: string; body?: unknown; rawBody?: string }): Promise<Response>
  /** `POST /v1/message` with `body` as JSON. */
  postMessage(body: unknown): Promise<Response>
  /** `POST /v1/event-subscriptions` with `body`. @throws unless the answer is 201. */
  subscribe(body: Record<string, unknown>): Promise<Subscription>
  restart(): Promise<void>
  /** Stops agent-node and removes its data folder; later calls wait for the first. */
  close(): Promise<void>
}

/** Options of `startTestAgentNode`: its label, and its endpoint (`http` only: peers POST to it and fail once it is gone). */
export interface TestAgentNodeOptions {
  label?: string
  endpoint?: 'ws' | 'http'
}

/** Starts agent-node with `env` added to (and overriding) the test configuration. */
export async function startTestAgentNode(env: Record<string, string> = {}, options: TestAgentNodeOptions = {}): Promise<TestAgentNode> {
  const label = options.label ?? 'parley-test'
  const dataDir = mkdtempSync(join(tmpdir(), `parley-${label}-`))
  const publicPort = await freePort()
  const { config } = loadConfig({
    AGENT_LABEL: label,
    DATA_DIR: dataDir,
    AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
    PUBLIC_PORT: String(publicPort),
    ADMIN_PORT: String(await freePort()),
    AGENT_ENDPOINTS: `${options.endpoint ?? 'ws'}://127.0.0.1:${publicPort}`,
    OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
    EVENTS_RETRY_BASE_MS: '20',
    EVENTS_RETRY_MAX_MS: '100',
    EVENTS_MAX_ATTEMPTS: '3',
    // no safe primes searched ahead by the many agents that make a credential definition or two;
    // test/anoncreds-registry/safe-prime-reserve.test.ts turns the reserve on
    ANONCREDS_SAFE_PRIME_RESERVE: '0',
    ...env,
  })
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent')
  let node = await startAgentNode(config, logger)
  let closing: Promise<void> | undefined
  const testNode: TestAgentNode = {
    get node() {
      return node
    },
    config,
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
    postMessage(body) {
      return testNode.admin('/v1/message', { body })
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
    close() {
      closing ??= node.stop().finally(() => rmSync(dataDir, { recursive: true, force: true }))
      return closing
    },
  }
  return testNode
}

/**
 * Registers hooks giving the enclosing `describe` (e.g. of `describe.each(dialects)`) one
 * agent-node on `dialect` (PostgreSQL: `DATABASE_URL` a fresh database of its own, see
 * `usePostgresTestDatabase`), started with `env` before its first test, then `setup` run on it,
 * and closed after its last test. If either fails (e.g. PostgreSQL is unreachable), every test
 * fails with the reason (`useSuiteResource`).
 *
 * @returns an object whose `agent` is valid inside tests.
 */
export function useTestAgentNode(
  dialect: Dialect,
  env: Record<string, string> = {},
  setup?: (agent: TestAgentNode) => Promise<void>,
): { readonly agent: TestAgentNode } {
  const server = dialect === 'postgres' ? usePostgresTestDatabase() : undefined
  const agent = useSuiteResource(
    async () => {
      const started = await startTestAgentNode(server ? { ...env, DATABASE_URL: server.url } : env)
      try {
        await setup?.(started)
      } catch (error) {
        await started.close()
        throw error
      }
      return started
    },
    (started) => started.close(),
    120_000,
  )
  return {
    get agent() {
      return agent()
    },
  }
}

/**
 * Connects `wallet` to the in-process agent-node `node` (admin API at `adminUrl`) through a fresh
 * `GET /v1/invitation` and waits for DID Exchange to complete on the agent's side.
 * @returns the connection's id on each side.
 */
export async function connectWallet(
  node: AgentNode,
  adminUrl: string,
  wallet: WalletPeer,
): Promise<{ connectionId: string; walletConnectionId: string }> {
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
