/**
 * Redaction of a received message (tunnel command `redact-message`): a text the user typed that
 * held a secret (a value for a user-controlled MCP server, manifest spec "Authentication" rule 7)
 * must not stay in the agent's stores. Both copies are overwritten with `REDACTION_MARKER`:
 * Credo's basic message record (its `content`) and the `message-received` event in the outbox
 * (the envelope's `content`). Receivers that already got the event keep what they got.
 */
import { DidCommBasicMessageRepository, DidCommBasicMessageRole } from '@credo-ts/didcomm'
import { REDACTION_MARKER } from '@parley/shared'
import type { DidcommAgent } from '../didcomm/agent.ts'
import type { OutboxStore } from '../events/outbox/store.ts'

/**
 * Overwrites the stored text of message `messageId` received on `connectionId`, in Credo's
 * records and in the outbox. Idempotent.
 * @returns how many stored copies were changed (0 when already redacted or unknown).
 * @throws when a store cannot be read or written.
 */
export async function redactReceivedMessage(
  agent: DidcommAgent,
  outbox: OutboxStore,
  connectionId: string,
  messageId: string,
): Promise<number> {
  const repository = agent.dependencyManager.resolve(DidCommBasicMessageRepository)
  const records = await repository.findByQuery(agent.context, {
    connectionId,
    threadId: messageId,
    role: DidCommBasicMessageRole.Receiver,
  })
  let changed = 0
  for (const record of records) {
    if (record.content === REDACTION_MARKER) continue
    record.content = REDACTION_MARKER
    await repository.update(agent.context, record)
    changed++
  }
  return changed + (await outbox.redactReceivedMessage(connectionId, messageId, REDACTION_MARKER))
}
