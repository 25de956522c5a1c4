/**
 * Helpers for message types that start an Aries protocol exchange (issue-credential v2,
 * present-proof v2) on the connection: the exchange is created by Credo's protocol (so its
 * record exists), then the message goes out through `sendDidComm`, which gives it Parley's
 * message id; the exchange's thread is that id too (`sendExchangeMessage`).
 */
import {
  DidCommCredentialsModuleConfig,
  DidCommCredentialV2Protocol,
  DidCommProofsModuleConfig,
  DidCommProofV2Protocol,
  type DidCommMessage,
} from '@credo-ts/didcomm'
import type { DidcommAgent } from '../../didcomm/agent.ts'
import type { SendContext } from '../contract.ts'

/** The agent's issue-credential v2 protocol. */
export function credentialV2(agent: DidcommAgent): DidCommCredentialV2Protocol {
  const protocol = agent.dependencyManager
    .resolve(DidCommCredentialsModuleConfig)
    .credentialProtocols.find((p) => p instanceof DidCommCredentialV2Protocol)
  if (!protocol) throw new Error('issue-credential v2 is not configured')
  return protocol as DidCommCredentialV2Protocol
}

/** The agent's present-proof v2 protocol. */
export function proofV2(agent: DidcommAgent): DidCommProofV2Protocol {
  const protocol = agent.dependencyManager
    .resolve(DidCommProofsModuleConfig)
    .proofProtocols.find((p) => p instanceof DidCommProofV2Protocol)
  if (!protocol) throw new Error('present-proof v2 is not configured')
  return protocol as DidCommProofV2Protocol
}

/** An exchange record whose thread the first message sets, and how to store it. */
export interface ExchangeThread {
  record: { threadId: string }
  /** Stores `record` (its `threadId` tag included). */
  save(): Promise<void>
}

/**
 * Sends the first message of an exchange. The exchange's thread becomes Parley's message id (the
 * id `POST /v1/message` returned), so every later event of the exchange (`credential-reception`,
 * `identity-proof-submit`) carries that id as `threadId`, as vs-agent reports it, and the
 * controller answers on it (`identity-proof-result`). `parentThreadId` (the body's `threadId`)
 * links it to the conversation it answers.
 */
export async function sendExchangeMessage(
  context: SendContext,
  message: DidCommMessage,
  exchange: ExchangeThread,
  parentThreadId?: string,
): Promise<void> {
  exchange.record.threadId = context.messageId
  await exchange.save()
  message.setThread({ threadId: context.messageId, parentThreadId })
  await context.sendDidComm(message)
}
