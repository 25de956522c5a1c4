/**
 * One in-process agent-node (WebSocket endpoint, webhooks to a test receiver) and one wallet peer
 * connected to it over real WebSocket on loopback: the set-up of the per-protocol message tests.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DidCommConnectionEventTypes, DidCommDidExchangeState, type DidCommConnectionStateChangedEvent } from '@credo-ts/didcomm'
import { startAgentNode, type AgentNode } from '../../src/app.ts'
import { loadConfig } from '../../src/config/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/terminal-wallet/WalletPeer.ts'
import { startEventReceiver, type EventReceiver, type ReceivedEvent } from '../../../test/support/event-receiver.ts'
import { freePort } from '../../../scripts/local-stack.ts'

export interface WalletSession {
  node: AgentNode
  wallet: WalletPeer
  receiver: EventReceiver
  /** The connection on agent-node's side (what `POST /v1/message` names). */
  connectionId: string
  /** The same connection on the wallet's side. */
  walletConnectionId: string
  /** POSTs `body` to `/v1/message`; returns status and JSON. */
  postMessage(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }>
  /** Resolves with the `message-received` envelope whose message has `id`. */
  received(id: string): Promise<Record<string, unknown>>
  /** The `message-state-updated` states of `messageId` so far, once `last` has been reported. */
  statesOf(messageId: string, last: string): Promise<unknown[]>
  close(): Promise<void>
}

export async function openWalletSession(label: string): Promise<WalletSession> {
  const dataDir = mkdtempSync(join(tmpdir(), `parley-${label}-`))
  const receiver = await startEventReceiver()
  const publicPort = await freePort()
  const { config } = loadConfig({
    AGENT_LABEL: label,
    DATA_DIR: dataDir,
    AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
    PUBLIC_PORT: String(publicPort),
    ADMIN_PORT: String(await freePort()),
    AGENT_ENDPOINTS: `ws://127.0.0.1:${publicPort}`,
    EVENTS_BASE_URL: receiver.url,
  })
  const node = await startAgentNode(config, createLogger('silent'))
  const wallet = await WalletPeer.create({ label: `${label}-wallet`, logger: createLogger('silent', 'wallet') })
  const completed = new Promise<string>((resolve) => {
    node.agent.events.on<DidCommConnectionStateChangedEvent>(DidCommConnectionEventTypes.DidCommConnectionStateChanged, ({ payload }) => {
      if (payload.connectionRecord.state === DidCommDidExchangeState.Completed) resolve(payload.connectionRecord.id)
    })
  })
  const admin = `http://127.0.0.1:${node.adminPort}`
  const { url } = (await (await fetch(`${admin}/v1/invitation`)).json()) as { url: string }
  const walletConnectionId = await wallet.connect(url)
  const connectionId = await completed
  const isMessage = (id: string) => (event: ReceivedEvent) => event.topic === 'message-received' && (event.body.message as { id?: string }).id === id

  return {
    node,
    wallet,
    receiver,
    connectionId,
    walletConnectionId,
    async postMessage(body) {
      const response = await fetch(`${admin}/v1/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      return { status: response.status, json: (await response.json()) as Record<string, unknown> }
    },
    async received(id) {
      return (await receiver.waitFor(isMessage(id))).body.message as Record<string, unknown>
    },
    async statesOf(messageId, last) {
      await receiver.waitFor((e) => e.topic === 'message-state-updated' && e.body.messageId === messageId && e.body.state === last)
      return receiver.events.filter((e) => e.topic === 'message-state-updated' && e.body.messageId === messageId).map((e) => e.body.state)
    },
    async close() {
      await wallet.stop()
      await node.stop()
      await receiver.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
