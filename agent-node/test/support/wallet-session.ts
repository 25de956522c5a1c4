/**
 * An in-process agent-node (real SQLite, WebSocket endpoint on loopback, webhooks to an event
 * receiver) and a WalletPeer connected to it: the setting of the message-type tests.
 */
import { afterAll, beforeAll } from 'vitest'
import type { AgentNode } from '../../src/app.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { startEventReceiver, type EventReceiver, type ReceivedEvent } from './event-receiver.ts'
import { connectWallet, startTestAgentNode } from './agent-node.ts'

export interface WalletSession {
  node: AgentNode
  wallet: WalletPeer
  receiver: EventReceiver
  /** The connection's id on agent-node's side (what `POST /v1/message` takes). */
  connectionId: string
  /** The same connection's id on the wallet's side. */
  walletConnectionId: string
  /** Connects the wallet once more (a new invitation). @returns both sides' ids of the new connection. */
  connect(): Promise<{ connectionId: string; walletConnectionId: string }>
  /** `POST /v1/message` with `body` as JSON. */
  postMessage(body: unknown): Promise<Response>
  /** `POST /v1/message` with `body` as JSON. @returns the status and the JSON answer. */
  postJson(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }>
  /** Resolves with the `message-received` envelope whose message has `id` (already received, or next). */
  received(id: string): Promise<Record<string, unknown>>
  /** The `message-state-updated` states of `messageId` so far, once `last` has been reported. */
  statesOf(messageId: string, last: string): Promise<unknown[]>
  /** `POST /v1/message` on `connectionId`, which must answer 200. @returns the message id. */
  sendMessage(body: Record<string, unknown>): Promise<string>
  stop(): Promise<void>
}

/** Starts agent-node, the event receiver and a wallet, and connects the wallet (DID Exchange completed). */
export async function startWalletSession(label: string): Promise<WalletSession> {
  const receiver = await startEventReceiver()
  const agent = await startTestAgentNode({ EVENTS_BASE_URL: receiver.url }, { label })
  const wallet = await WalletPeer.create({ label: `${label}-wallet`, logger: createLogger('silent', 'wallet') })
  const connect = () => connectWallet(agent.node, agent.adminUrl, wallet)
  const { connectionId, walletConnectionId } = await connect()

  return {
    node: agent.node,
    wallet,
    receiver,
    connectionId,
    walletConnectionId,
    connect,
    postMessage: agent.postMessage,
    async postJson(body) {
      const response = await agent.postMessage(body)
      return { status: response.status, json: (await response.json()) as Record<string, unknown> }
    },
    async received(id) {
      const event = await receiver.waitFor((e) => e.topic === 'message-received' && (e.body.message as { id?: string }).id === id)
      return event.body.message as Record<string, unknown>
    },
    async statesOf(messageId, last) {
      const ofMessage = (e: ReceivedEvent) => e.topic === 'message-state-updated' && e.body.messageId === messageId
      await receiver.waitFor((e) => ofMessage(e) && e.body.state === last)
      return receiver.events.filter(ofMessage).map((e) => e.body.state)
    },
    async sendMessage(body) {
      const response = await agent.postMessage({ connectionId, ...body })
      if (response.status !== 200) throw new Error(`POST /v1/message answered ${response.status}: ${await response.text()}`)
      return ((await response.json()) as { id: string }).id
    },
    async stop() {
      await wallet.stop()
      await agent.close()
      await receiver.close()
    },
  }
}

/**
 * Starts a session before the suite's tests and stops it after them.
 * @returns the session (call it inside tests and hooks).
 */
export function useWalletSession(label: string): () => WalletSession {
  let session: WalletSession | undefined
  beforeAll(async () => {
    session = await startWalletSession(label)
  }, 120_000)
  afterAll(async () => {
    await session?.stop()
  })
  return () => {
    if (!session) throw new Error('the wallet session has not started')
    return session
  }
}

/** Resolves with the `message-received` body whose message has type `type` (already received, or next). */
export async function receivedMessage(receiver: EventReceiver, type: string): Promise<Record<string, unknown>> {
  const event = await receiver.waitFor((e) => e.topic === 'message-received' && (e.body.message as { type: string }).type === type)
  return event.body
}
