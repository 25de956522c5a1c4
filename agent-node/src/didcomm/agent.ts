/**
 * Builds a Credo 0.6.3 agent on Parley's pure-JavaScript wallet (encrypted KMS + drizzle
 * storage) and pure-TypeScript AnonCreds engine. agent-node and the terminal wallet are the same
 * kind of agent with different transports, so both are made here. Both speak issue-credential v2
 * and present-proof v2 with the AnonCreds formats, question-answer 1.0 (menus), action-menu 1.0
 * (the contextual menu), and 2060.io's media-sharing, receipts, user-profile, calls and MRTD
 * protocols.
 */
// The engine must be registered before `@credo-ts/anoncreds` is first imported: keep this first.
import { anoncredsEngine } from '../anoncreds-registry/register.ts'
import { AnonCredsDidCommCredentialFormatService, AnonCredsDidCommProofFormatService, AnonCredsModule } from '@credo-ts/anoncreds'
import { Agent, DidsModule, JwkDidResolver, Kms } from '@credo-ts/core'
import {
  DidCommAutoAcceptCredential,
  DidCommAutoAcceptProof,
  DidCommCredentialV2Protocol,
  DidCommHttpOutboundTransport,
  DidCommModule,
  DidCommProofV2Protocol,
  DidCommWsOutboundTransport,
  type DidCommInboundTransport,
} from '@credo-ts/didcomm'
import { agentDependencies } from '@credo-ts/node'
import { QuestionAnswerModule } from '@credo-ts/question-answer'
import { DidWebAnonCredsRegistry } from '../anoncreds-registry/index.ts'
import { CachingPeerDidResolver } from '../did/CachingPeerDidResolver.ts'
import { WebDidResolver } from '../did/WebDidResolver.ts'
import { ActionMenuModule } from './protocols/action-menu/index.ts'
import { CredoLogger, credoLogLevel, type Logger } from '../logging/index.ts'
import { RateLimitedLogger } from '../logging/rate-limited.ts'
import type { DatabaseQueueTransportRepository } from './transport/DatabaseQueueTransportRepository.ts'
import { DEFAULT_ENVELOPE_LIMITS } from './transport/envelope.ts'
import { ExchangeSessionsModule } from './exchange-sessions.ts'
import { KeyLookupsModule } from './key-lookups.ts'
import { OrderedPickupModule } from './transport/OrderedMessageSender.ts'
import { guardedWebSocketClass } from './transport/OutboundWebSocket.ts'
import { DrizzleStorageModule, type DrizzleStorageService } from '../wallet/storage/index.ts'
import { CallsModule } from './protocols/calls/index.ts'
import { MediaSharingModule } from './protocols/media-sharing/index.ts'
import { MrtdModule } from './protocols/mrtd/index.ts'
import { ReactionsModule } from './protocols/reactions/index.ts'
import { ReceiptsModule } from './protocols/receipts/index.ts'
import { UserProfileModule, type UserProfileData } from './protocols/user-profile/index.ts'

export interface DidcommAgentOptions {
  /** Endpoints announced in invitations and DID documents; `didcomm:transport/queue` for an agent with none. */
  endpoints: string[]
  inboundTransports: DidCommInboundTransport[]
  kms: Kms.KeyManagementService
  storageService: DrizzleStorageService
  logger: Logger
  logLevel: string
  /** The profile this agent answers `request-profile` with (user-profile protocol); none when omitted. */
  ownProfile?: UserProfileData
  /** Largest frame accepted on outbound WebSockets to peers, in bytes (the inbound envelope limit; default 5 MiB). */
  maxFrameBytes?: number
  /**
   * The `fetch` of every HTTP request the agent makes: invitation URLs, DIDComm over HTTP,
   * did:web resolution, AnonCreds objects. agent-node passes `OutboundGuard.fetch`, so nothing a
   * peer or an API caller supplies reaches its own network; default the global fetch.
   */
  fetch?: typeof globalThis.fetch
  /**
   * Where messages wait for a wallet to pick them up, and later messages wait behind them
   * (`transport/OrderedMessageSender.ts`); Credo's in-memory queue, and its sender, when omitted.
   */
  pickupQueue?: DatabaseQueueTransportRepository
  /**
   * With `pickupQueue`: what the sender waits for before a message leaves (or joins the pickup
   * queue), so a peer never sees what a power loss could undo (`Database.syncToDisk`).
   */
  syncToDisk?: () => Promise<void>
}

function modules(options: DidcommAgentOptions) {
  const fetch = options.fetch ?? globalThis.fetch
  return {
    storage: new DrizzleStorageModule(options.storageService),
    kms: new Kms.KeyManagementModule({ backends: [options.kms] }),
    // Credo's default resolvers, with did:web and did:webvh resolved by ours (through `fetch`) and
    // did:peer documents kept once decoded; did:key is added by Credo.
    dids: new DidsModule({ resolvers: [new WebDidResolver(fetch), new JwkDidResolver(), new CachingPeerDidResolver()] }),
    anoncreds: new AnonCredsModule({
      // did:web / did:webvh issuers: publishes under this agent's public DID, resolves over HTTP.
      registries: [new DidWebAnonCredsRegistry(fetch)],
      anoncreds: anoncredsEngine,
    }),
    didcomm: new DidCommModule({
      endpoints: options.endpoints,
      queueTransportRepository: options.pickupQueue,
      transports: {
        inbound: options.inboundTransports,
        outbound: [new DidCommWsOutboundTransport(), new DidCommHttpOutboundTransport()],
      },
      connections: { autoAcceptConnections: true },
      basicMessages: true,
      messagePickup: true,
      // contentApproved: the issuer issues when a request answers its own offer, the holder
      // stores what it asked for, the verifier verifies and acks; offers and proof requests
      // that were not proposed wait for the holder's decision.
      credentials: {
        autoAcceptCredentials: DidCommAutoAcceptCredential.ContentApproved,
        credentialProtocols: [new DidCommCredentialV2Protocol({ credentialFormats: [new AnonCredsDidCommCredentialFormatService()] })],
      },
      proofs: {
        autoAcceptProofs: DidCommAutoAcceptProof.ContentApproved,
        proofProtocols: [new DidCommProofV2Protocol({ proofFormats: [new AnonCredsDidCommProofFormatService()] })],
      },
      mediator: false,
      mediationRecipient: false,
    }),
    // after `didcomm`: these replace its services before the agent's APIs take them
    keyLookups: new KeyLookupsModule(),
    // the DID Exchange request's socket untied from the connection once the response left
    exchangeSessions: new ExchangeSessionsModule(),
    ...(options.pickupQueue ? { pickupOrder: new OrderedPickupModule(options.pickupQueue, options.syncToDisk) } : {}),
    questionAnswer: new QuestionAnswerModule(),
    actionMenu: new ActionMenuModule(),
    // 2060.io's protocols, spoken by the Hologram wallet (agent-node/src/didcomm/<protocol>/).
    media: new MediaSharingModule(),
    receipts: new ReceiptsModule(),
    reactions: new ReactionsModule(),
    userProfile: new UserProfileModule({ ownProfile: options.ownProfile }),
    calls: new CallsModule(),
    mrtd: new MrtdModule(),
  }
}

export type DidcommAgent = Agent<ReturnType<typeof modules>>

/** Creates (but does not initialize) the agent. */
export function createDidcommAgent(options: DidcommAgentOptions): DidcommAgent {
  return new Agent({
    config: {
      logger: new CredoLogger(options.logger.child({ component: 'credo' }), credoLogLevel(options.logLevel)),
    },
    dependencies: {
      ...agentDependencies,
      // Peers' WebSocket endpoints answer through a guarded socket (transport/OutboundWebSocket.ts).
      WebSocketClass: guardedWebSocketClass(
        options.maxFrameBytes ?? DEFAULT_ENVELOPE_LIMITS.maxBytes,
        new RateLimitedLogger(options.logger.child({ component: 'didcomm-outbound' })),
      ),
      // Credo fetches invitation URLs and sends DIDComm over HTTP with `dependencies.fetch`.
      fetch: options.fetch ?? agentDependencies.fetch,
    },
    modules: modules(options),
  })
}
