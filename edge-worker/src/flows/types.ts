/**
 * The contract between the conversation object and its flows. A flow
 * gets the event, the session, the resolved pack and the clock; it queues commands with `send`
 * and returns a session patch and the turns to record. It never touches storage, alarms or the
 * tunnel: the conversation commits the patch, the record and the commands in one transaction,
 * then sends the commands with idempotency keys `<event id>:<step>`.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { AgentEvent } from '@parley/shared/events'
import type { TunnelCommand } from '@parley/shared/tunnel'
import type { Logger } from '../logging/index.ts'
import type { Session, SessionPatch } from '../session/index.ts'
import type { NoticeText } from '../approvals/types.ts'
import type { ApprovalsPort } from './approvals/port.ts'
import type { ChatServices } from './chat/services.ts'

/** A flow's own timer firing (set with `FlowResult.timer`). */
export interface TimerEvent {
  type: 'timer'
  /** When the timer was due, ms since the epoch. */
  at: number
}

/** A notice of the approvals object (approvals/ `ApprovalNotice`): texts to say, then a menu refresh. */
export interface ApprovalNoticeEvent {
  type: 'approval-notice'
  texts: NoticeText[]
}

/** What flows handle: an agent event of this connection, a timer, or an approvals notice. */
export type FlowEvent = AgentEvent | TimerEvent | ApprovalNoticeEvent

/** One entry of the conversation record: a message of the chat or a tool call and its result. */
export type RecordEntry =
  | { role: 'user' | 'assistant'; content: string }
  | { role: 'tool'; content: string; toolName: string; toolCallId: string; arguments: unknown; ok: boolean }

export interface FlowContext {
  event: FlowEvent
  /** The event's id (dedupe key), or `timer-<at>` for a timer. */
  eventId: string
  connectionId: string
  session: Session
  config: AgentPackConfig
  /** Queues a command; it is sent after the flow's result is committed. */
  send(command: TunnelCommand): void
  /** Clock of this handling, ms since the epoch. */
  now: number
  log: Logger
  /** Model, tools and memory, for the flows that talk with the model. */
  chat: ChatServices
  /** The approval requests (the approvals object); absent in tests that do not need it. */
  approvals?: ApprovalsPort
}

/** What a flow asks the conversation to commit. */
export interface FlowResult {
  session?: SessionPatch
  /** Turns and tool calls to keep in the conversation record (and the memory window). */
  record?: RecordEntry[]
  /**
   * The event's message held a secret (a value for a user-controlled MCP server): the conversation
   * overwrites the text of its stored copy with the redaction marker when it commits this result.
   */
  redact?: boolean
}

export interface Flow {
  readonly name: string
  /** Whether this flow handles `event` now (pure). The first flow of the registry that claims it handles it. */
  claims(event: FlowEvent, session: Session, config: AgentPackConfig): boolean
  handle(context: FlowContext): Promise<FlowResult>
}
