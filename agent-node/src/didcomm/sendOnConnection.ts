/**
 * Sending one DIDComm message on a connection: the step every protocol module's API ends with, and
 * the one the controller's messages (`messaging/MessageService.ts`) leave through.
 */
import type { AgentContext } from '@credo-ts/core'
import {
  DidCommConnectionRecord,
  DidCommConnectionService,
  DidCommMessageSender,
  DidCommOutboundMessageContext,
  type DidCommMessage,
} from '@credo-ts/didcomm'

/**
 * Sends `message` on `connection` (its record, or its id, looked up first). Resolves once the
 * transport took it (or queued it for pickup).
 * @throws RecordNotFoundError when the connection does not exist; MessageSendingError when the
 * message cannot be sent.
 */
export async function sendOnConnection(
  agentContext: AgentContext,
  connection: string | DidCommConnectionRecord,
  message: DidCommMessage,
): Promise<void> {
  const record =
    connection instanceof DidCommConnectionRecord
      ? connection
      : await agentContext.dependencyManager.resolve(DidCommConnectionService).getById(agentContext, connection)
  await agentContext.dependencyManager
    .resolve(DidCommMessageSender)
    .sendMessage(new DidCommOutboundMessageContext(message, { agentContext, connection: record }))
}
