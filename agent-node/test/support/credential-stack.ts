/**
 * For the credential and proof tests: an in-process agent-node (real SQLite, real WebSocket on
 * loopback) whose events and presentation callbacks go to one local receiver (callbacks to
 * `<receiver>/callback`, recorded with topic `callback`; loopback allowed through
 * OUTBOUND_ALLOWED_NETWORKS), a wallet peer that resolves the agent's AnonCreds objects, and
 * small helpers for the admin API and the wallet.
 */
import '../../src/anoncreds-registry/register.ts'
import {
  DidCommCredentialEventTypes,
  DidCommCredentialState,
  DidCommProofEventTypes,
  DidCommProofState,
  type DidCommCredentialExchangeRecord,
  type DidCommCredentialStateChangedEvent,
  type DidCommProofExchangeRecord,
  type DidCommProofStateChangedEvent,
} from '@credo-ts/didcomm'
import type { AgentNode } from '../../src/app.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { startEventReceiver, type EventReceiver } from './event-receiver.ts'
import { connectWallet, startTestAgentNode } from './agent-node.ts'
import { nextEvent } from './next-event.ts'

export interface AdminResponse<T = Record<string, unknown>> {
  status: number
  body: T
}

export interface CredentialStack {
  node: AgentNode
  wallet: WalletPeer
  /** Webhook events and presentation callbacks (topic `callback`). */
  receiver: EventReceiver
  callbackUrl: string
  /** Calls the admin API; `body` makes it a JSON POST. */
  admin<T = Record<string, unknown>>(path: string, body?: unknown): Promise<AdminResponse<T>>
  /** Creates (or finds) a credential type and returns its credential definition id. */
  credentialType(name: string, attributes: string[]): Promise<string>
  /** Connects the wallet through a fresh `/v1/invitation`; returns the agent-side connection id. */
  connectWallet(): Promise<string>
  stop(): Promise<void>
}

export async function startCredentialStack(label: string): Promise<CredentialStack> {
  const receiver = await startEventReceiver()
  const agentNode = await startTestAgentNode({ EVENTS_BASE_URL: receiver.url }, { label })
  const node = agentNode.node
  const wallet = await WalletPeer.create({
    label: 'holder',
    logger: createLogger('silent', 'wallet'),
  })

  const admin = async <T>(path: string, body?: unknown): Promise<AdminResponse<T>> => {
    const response = await agentNode.admin(path, { body })
    return { status: response.status, body: (await response.json()) as T }
  }

  return {
    node,
    wallet,
    receiver,
    callbackUrl: `${receiver.url}/callback`,
    admin,
    async credentialType(name, attributes) {
      const created = await admin<{ id: string }>('/v1/credential-types', { name, version: '1.0', attributes })
      if (created.status !== 201 && created.status !== 200)
        throw new Error(`credential type: ${created.status} ${JSON.stringify(created.body)}`)
      return created.body.id
    },
    async connectWallet() {
      return (await connectWallet(node, agentNode.adminUrl, wallet)).connectionId
    },
    async stop() {
      await wallet.stop()
      await agentNode.close()
      await receiver.close()
    },
  }
}

/** The next credential offer the wallet receives (subscribe before triggering it). */
export function nextOfferReceived(wallet: WalletPeer): Promise<DidCommCredentialExchangeRecord> {
  return nextEvent<DidCommCredentialStateChangedEvent, DidCommCredentialExchangeRecord>(
    wallet.agent,
    DidCommCredentialEventTypes.DidCommCredentialStateChanged,
    (p) => (p.credentialExchangeRecord.state === DidCommCredentialState.OfferReceived ? p.credentialExchangeRecord : undefined),
  )
}

/** The next proof request the wallet receives (subscribe before triggering it). */
export function nextProofRequestReceived(wallet: WalletPeer): Promise<DidCommProofExchangeRecord> {
  return nextEvent<DidCommProofStateChangedEvent, DidCommProofExchangeRecord>(
    wallet.agent,
    DidCommProofEventTypes.ProofStateChanged,
    (p) => (p.proofRecord.state === DidCommProofState.RequestReceived ? p.proofRecord : undefined),
  )
}

/** Issues a credential to the wallet through an offer invitation's short URL; resolves when the wallet holds it. */
export async function issueThroughShortUrl(
  stack: CredentialStack,
  credentialDefinitionId: string,
  claims: Record<string, string>,
): Promise<void> {
  const offer = await stack.admin<{ shortUrl: string }>('/v1/credential-offer', {
    credentialDefinitionId,
    claims: Object.entries(claims).map(([name, value]) => ({ name, value })),
  })
  if (offer.status !== 200) throw new Error(`offer: ${offer.status} ${JSON.stringify(offer.body)}`)
  const received = nextOfferReceived(stack.wallet)
  await stack.wallet.connect(offer.body.shortUrl)
  await stack.wallet.acceptCredentialOffer((await received).id, 90_000)
}
