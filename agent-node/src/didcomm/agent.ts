/**
 * Builds a Credo 0.6.3 agent on Parley's pure-JavaScript wallet (encrypted KMS + drizzle
 * storage). agent-node and the terminal wallet are the same kind of agent with different
 * transports, so both are made here.
 */
import { Agent, Kms } from '@credo-ts/core'
import {
  DidCommHttpOutboundTransport,
  DidCommModule,
  DidCommWsOutboundTransport,
  type DidCommInboundTransport,
} from '@credo-ts/didcomm'
import { agentDependencies } from '@credo-ts/node'
import { CredoLogger, credoLogLevel, type Logger } from '../logging/index.ts'
import { DrizzleStorageModule, type DrizzleStorageService } from '../wallet/storage/index.ts'

export interface DidcommAgentOptions {
  /** Endpoints announced in invitations and DID documents; `didcomm:transport/queue` for an agent with none. */
  endpoints: string[]
  inboundTransports: DidCommInboundTransport[]
  kms: Kms.KeyManagementService
  storageService: DrizzleStorageService
  logger: Logger
  logLevel: string
}

function modules(options: DidcommAgentOptions) {
  return {
    storage: new DrizzleStorageModule(options.storageService),
    kms: new Kms.KeyManagementModule({ backends: [options.kms] }),
    didcomm: new DidCommModule({
      endpoints: options.endpoints,
      transports: {
        inbound: options.inboundTransports,
        outbound: [new DidCommWsOutboundTransport(), new DidCommHttpOutboundTransport()],
      },
      connections: { autoAcceptConnections: true },
      basicMessages: true,
      messagePickup: true,
      credentials: false,
      proofs: false,
      mediator: false,
      mediationRecipient: false,
    }),
  }
}

export type DidcommAgent = Agent<ReturnType<typeof modules>>

/** Creates (but does not initialize) the agent. */
export function createDidcommAgent(options: DidcommAgentOptions): DidcommAgent {
  return new Agent({
    config: {
      logger: new CredoLogger(options.logger.child({ component: 'credo' }), credoLogLevel(options.logLevel)),
    },
    dependencies: agentDependencies,
    modules: modules(options),
  })
}
