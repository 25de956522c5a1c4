import type { AgentNodeConfig } from '../config/index.ts'
import type { CredentialTypes } from '../credentials/CredentialTypes.ts'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { OutboundGuard } from '../http/outbound-guard.ts'
import type { Logger } from '../logging/index.ts'
import type { MessageService } from '../messages/MessageService.ts'
import type { PresentationRequests } from '../proofs/PresentationRequests.ts'
import type { ShortUrls } from '../short-urls/ShortUrls.ts'

/** What the admin routes need; built once in `app.ts`, handed to every router. */
export interface AdminDeps {
  agent: DidcommAgent
  config: AgentNodeConfig
  messages: MessageService
  logger: Logger
  /** Name and version printed at start-up and returned by `GET /v1/agent`. */
  build: { name: string; version: string }
  /** The agent's public DID: issuer id of the credential types it creates. Never parse it. */
  publicDid: string
  credentialTypes: CredentialTypes
  shortUrls: ShortUrls
  presentationRequests: PresentationRequests
  /** Checks and calls URLs the controller hands over (callbacks). */
  guard: OutboundGuard
}
