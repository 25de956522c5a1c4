/**
 * Helpers for message types that start an Aries protocol exchange (issue-credential v2,
 * present-proof v2) on the connection: the exchange is created by Credo's protocol (so its
 * record and thread exist), then the message goes out through `sendDidComm`, which gives it
 * Parley's message id; the thread is pinned first so the exchange keeps its thread id.
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
  const protocol = agent.dependencyManager.resolve(DidCommCredentialsModuleConfig).credentialProtocols.find((p) => p instanceof DidCommCredentialV2Protocol)
  if (!protocol) throw new Error('issue-credential v2 is not configured')
  return protocol as DidCommCredentialV2Protocol
}

/** The agent's present-proof v2 protocol. */
export function proofV2(agent: DidcommAgent): DidCommProofV2Protocol {
  const protocol = agent.dependencyManager.resolve(DidCommProofsModuleConfig).proofProtocols.find((p) => p instanceof DidCommProofV2Protocol)
  if (!protocol) throw new Error('present-proof v2 is not configured')
  return protocol as DidCommProofV2Protocol
}

/**
 * Sends the first message of an exchange whose thread is `threadId`; `parentThreadId` (the
 * body's `threadId`) links it to the conversation it answers.
 */
export async function sendExchangeMessage(context: SendContext, message: DidCommMessage, threadId: string, parentThreadId?: string): Promise<void> {
  message.setThread({ threadId, parentThreadId })
  await context.sendDidComm(message)
}
