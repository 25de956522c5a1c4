/** Sending one DIDComm message on a connection: the step every protocol module's API ends with. */
import type { AgentContext } from '@credo-ts/core'
import { DidCommConnectionService, DidCommMessageSender, DidCommOutboundMessageContext, type DidCommMessage } from '@credo-ts/didcomm'

/**
 * Sends `message` on connection `connectionId`. Resolves once the transport took it (or queued it
 * for pickup).
 * @throws RecordNotFoundError when the connection does not exist; MessageSendingError when the
 * message cannot be sent.
 */
export async function sendOnConnection(agentContext: AgentContext, connectionId: string, message: DidCommMessage): Promise<void> {
  const connection = await agentContext.dependencyManager.resolve(DidCommConnectionService).getById(agentContext, connectionId)
  await agentContext.dependencyManager
    .resolve(DidCommMessageSender)
    .sendMessage(new DidCommOutboundMessageContext(message, { agentContext, connection }))
}
