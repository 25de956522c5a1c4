/** agent-node in process for tests: real SQLite in a temporary folder, real servers on loopback. */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startAgentNode, type AgentNode } from '../../src/app.ts'
import { loadConfig } from '../../src/config/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { freePort } from '../../../scripts/local-stack.ts'

/** An agent-node in a temporary data folder, its endpoint on loopback. */
export interface TestAgentNode {
  node: AgentNode
  /** Base URL of its admin API. */
  admin: string
  /** `POST /v1/message` with `body` as JSON. */
  postMessage(body: unknown): Promise<Response>
  /** Stops it and removes its data folder; later calls wait for the first. */
  stop(): Promise<void>
}

/**
 * Starts agent-node with `env` added to its configuration. It announces a WebSocket endpoint, or
 * only HTTP with `endpoint: 'http'` (peers then reach it by POSTing, and fail once it is gone).
 */
export async function startTestAgentNode(label: string, env: Record<string, string> = {}, endpoint: 'ws' | 'http' = 'ws'): Promise<TestAgentNode> {
  const dataDir = mkdtempSync(join(tmpdir(), `parley-${label}-`))
  const publicPort = await freePort()
  const { config } = loadConfig({
    AGENT_LABEL: label,
    DATA_DIR: dataDir,
    AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
    PUBLIC_PORT: String(publicPort),
    ADMIN_PORT: String(await freePort()),
    AGENT_ENDPOINTS: `${endpoint}://127.0.0.1:${publicPort}`,
    ...env,
  })
  const node = await startAgentNode(config, createLogger('silent'))
  const admin = `http://127.0.0.1:${node.adminPort}`
  let stopping: Promise<void> | undefined
  return {
    node,
    admin,
    postMessage: (body) => fetch(`${admin}/v1/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    stop() {
      stopping ??= node.stop().finally(() => rmSync(dataDir, { recursive: true, force: true }))
      return stopping
    },
  }
}
