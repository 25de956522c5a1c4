/**
 * The delivery state of each message sent through `POST /v1/message` (or a tunnel command), kept
 * in the agent's storage so a receipt arriving days later still finds it. Its id is the message
 * id (which is also the DIDComm `@id` the peer's receipts name). While the message is `created`
 * (accepted, not yet handed to a transport) the record also keeps its body, so a restart sends it
 * (`MessageService.resendAccepted`); records are sealed at rest like every Credo record.
 */
import { BaseRecord, type AgentContext, type Repository } from '@credo-ts/core'
import type { MessageState, SendMessageBody } from '@parley/shared'
import { recordRepository } from '../wallet/storage/repository.ts'

type SentMessageTags = { connectionId: string; state: MessageState }

export class SentMessageRecord extends BaseRecord<SentMessageTags> {
  static override readonly type = 'ParleySentMessage'
  override readonly type = SentMessageRecord.type

  connectionId!: string
  state!: MessageState
  /** The accepted body, until the message left (`sent`) or failed (`errored`). */
  body?: SendMessageBody
  /**
   * The agent-node instance sending it (`cluster/`): one that died before it left hands it to a
   * live one (`MessageService.resendAccepted`). Absent on records made before instances had ids.
   */
  instanceId?: string

  constructor(props?: { id: string; connectionId: string; state: MessageState; body?: SendMessageBody; instanceId?: string }) {
    super()
    if (props) {
      this.id = props.id
      this.createdAt = new Date()
      this.connectionId = props.connectionId
      this.state = props.state
      this.body = props.body
      this.instanceId = props.instanceId
    }
  }

  getTags(): SentMessageTags {
    return { ...this._tags, connectionId: this.connectionId, state: this.state }
  }
}

/** The repository of `SentMessageRecord`s in `agentContext`'s storage. */
export function sentMessageRepository(agentContext: AgentContext): Repository<SentMessageRecord> {
  return recordRepository(agentContext, SentMessageRecord)
}
