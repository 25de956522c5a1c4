import type { AgentNodeConfig } from '../config/index.ts'
import type { CredentialTypes } from '../credentials/CredentialTypes.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { OutboundGuard } from '../http/outbound-guard.ts'
import type { DeadLetterSources } from '../dead-letters/DeadLetters.ts'
import type { OutboxStore } from '../events/outbox/store.ts'
import type { SubscriptionService } from '../events/subscriptions/service.ts'
import type { Logger } from '../logging/index.ts'
import type { MessageService } from '../messaging/MessageService.ts'
import type { PresentationRequests } from '../identity-proofs/PresentationRequests.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'
import type { DrizzleStorageService } from '../wallet/storage/index.ts'

/**
 * What the admin app is built from (`createAdminApp`, called by `startAgentNode`). No router
 * sees it whole: `app.ts` hands each resource's router only the services it uses.
 */
export interface AdminDeps {
  agent: DidcommAgent
  config: AgentNodeConfig
  messages: MessageService
  /** The agent's record store: the lists page through it (`didcomm/records.ts`). */
  storage: DrizzleStorageService
  /** The event outbox (dead letters are read from it) and what replays them (the delivery engine, through its leases). */
  outbox: OutboxStore
  delivery: DeadLetterSources['delivery']
  /** Event subscriptions (`/v1/event-subscriptions`). */
  subscriptions: SubscriptionService
  /** The admin logger; each request logs through a child carrying its request id. */
  logger: Logger
  /** The agent's public DID (resolved, SCID included): issuer id of its AnonCreds objects. */
  publicDid: string
  /** Name and version printed at start-up and returned by `GET /v1/agent`. */
  build: { name: string; version: string }
  credentialTypes: CredentialTypes
  shortUrls: ShortUrls
  presentationRequests: PresentationRequests
  /** Checks and calls URLs the controller hands over (callbacks). */
  guard: OutboundGuard
  /** What every answer waits for: the commits made so far are durable (`Database.syncToDisk`). */
  syncToDisk: () => Promise<void>
}
