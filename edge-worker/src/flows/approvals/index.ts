/**
 * Flow `approvals`: tool calls that wait for an approval (manifest spec "mcp", approval policies;
 * hologram-ai-agent's RBAC and approval lifecycle), on the requester's and the approvers' side.
 * The requests themselves live in the approvals object (approvals/), reached through the
 * `approvals` port of the flow context.
 *
 * - Confirmation: when a model turn asks for a tool that needs an approval (tools/policy.ts), the
 *   chat flow calls `askToConfirm`: the user gets a question (APPROVAL_CONFIRM, Yes / No). Yes
 *   submits a pending request (APPROVAL_SUBMITTED), No drops it (APPROVAL_NOT_SUBMITTED).
 * - Menu action `my-approval-requests`: the requester's pending requests as a question; choosing
 *   one asks whether to cancel it (APPROVAL_CANCEL_CONFIRM).
 * - Menu action `pending-approvals`: the pending requests the user may approve; choosing one shows
 *   it (APPROVAL_REVIEW) with Approve / Reject. The first approver to answer wins; the others are
 *   told APPROVAL_NOT_PENDING.
 * - Notices (`approval-notice` events) from the approvals object after each transition: their
 *   texts are said in the user's language (approvals/notices.ts says which), and the menu is then
 *   refreshed with fresh badge counts (flows/step.ts).
 *
 * The questions awaiting an answer are kept in the session by message id (the `menu-select`'s
 * `threadId`), the latest `MAX_OPEN_QUESTIONS` of them.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { MenuSelectMessageEnvelope } from '@parley/shared/messages'
import { requestDetails } from '../../approvals/notices.ts'
import type { ApprovalAction, ApprovalRequest, ResolveOutcome } from '../../approvals/types.ts'
import { menuDisplay, sendText } from '../../commands/index.ts'
import { textFor, type TextKey } from '../../i18n/index.ts'
import { principalOf, type Session, type SessionPatch } from '../../session/index.ts'
import { toolRef, type ApprovalNeed } from '../../tools/policy.ts'
import type { Tool } from '../../tools/types.ts'
import { adminIdentities } from '../authentication/roles.ts'
import type { Flow, FlowContext, FlowEvent, FlowResult } from '../types.ts'

/** Questions kept open per session; an older one's answer is ignored. */
export const MAX_OPEN_QUESTIONS = 20
/** Requests listed in one question (a `menu-display` holds at most 64 items). */
const MAX_LISTED = 64

/** A question awaiting the user's answer. */
type Question =
  | { kind: 'confirm'; tool: string; server?: string; args: Record<string, unknown>; approval: ApprovalNeed }
  | { kind: 'mine' }
  | { kind: 'pending'; requests: Record<string, { requester: string; details: string; createdAt: number }> }
  | { kind: 'cancel'; requestId: string; details: string }
  | { kind: 'review'; requestId: string; requester: string; details: string }

/** The flow's state in the session. */
interface ApprovalsState {
  /** Open questions by message id, oldest first. */
  questions?: Record<string, Question>
}

function stateOf(session: Session): ApprovalsState {
  return (session.flowState.approvals as ApprovalsState | undefined) ?? {}
}

/** The session patch keeping `questions` (the latest `MAX_OPEN_QUESTIONS`). */
function withQuestions(questions: Record<string, Question>): SessionPatch {
  const kept = Object.fromEntries(Object.entries(questions).slice(-MAX_OPEN_QUESTIONS))
  return { flowState: { approvals: { questions: kept } satisfies ApprovalsState } }
}

const languageOf = (session: Session, config: AgentPackConfig) => session.language ?? config.metadata.defaultLanguage

/** Text `key` in the user's language with `{name}` placeholders filled from `params`. */
function render(context: Pick<FlowContext, 'config' | 'session'>, key: string, params: Record<string, string> = {}): string {
  const template = textFor(context.config, languageOf(context.session, context.config), key) ?? key
  return template.replace(/\{(\w+)\}/g, (match, name: string) => params[name] ?? match)
}

function say(context: FlowContext, key: TextKey, params?: Record<string, string>): void {
  context.send(sendText(context.connectionId, render(context, key, params)))
}

/** Asks a question with `items` (text keys or literal texts by id); returns the session patch opening it. */
function ask(context: FlowContext, prompt: string, items: { id: string; text: string }[], question: Question): SessionPatch {
  const messageId = crypto.randomUUID()
  context.send(menuDisplay(context.connectionId, messageId, prompt, items))
  return withQuestions({ ...stateOf(context.session).questions, [messageId]: question })
}

const minuteOf = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** The answer to one of this session's open questions, if `event` is one. */
function answer(event: FlowEvent, session: Session): { threadId: string; choice: string; question: Question } | undefined {
  if (event.type !== 'message-received' || event.message.type !== 'menu-select') return undefined
  const message: MenuSelectMessageEnvelope = event.message
  const question = message.threadId ? stateOf(session).questions?.[message.threadId] : undefined
  const choice = message.menuItems[0]?.id
  return question && choice !== undefined ? { threadId: message.threadId!, choice, question } : undefined
}

const principal = (context: Pick<FlowContext, 'session' | 'config'>) =>
  principalOf(context.session, adminIdentities(context.config.flows.authentication))

export const approvalsFlow: Flow = {
  name: 'approvals',
  claims: (event, session) => event.type === 'approval-notice' || answer(event, session) !== undefined,
  async handle(context) {
    const { event, session } = context
    if (event.type === 'approval-notice') {
      for (const text of event.texts) context.send(sendText(context.connectionId, render(context, text.key, text.params)))
      return {}
    }
    const { threadId, choice, question } = answer(event, session)!
    const rest = { ...stateOf(session).questions }
    delete rest[threadId]
    const closed = withQuestions(rest)
    const next = { ...context, session: { ...session, flowState: { ...session.flowState, ...closed.flowState } } }
    switch (question.kind) {
      case 'confirm':
        return confirm(next, threadId, choice, question, closed)
      case 'mine':
        return chooseOwn(next, choice)
      case 'pending':
        return choosePending(next, choice, question)
      case 'cancel':
        return choice === 'cancel' ? act(next, question.requestId, 'cancel', closed) : { session: closed }
      case 'review':
        return choice === 'approve' || choice === 'reject' ? act(next, question.requestId, choice, closed) : { session: closed }
    }
  },
}

/**
 * Asks the user to confirm the call of `tool` with `args`, which waits for `approval` (called by
 * the chat flow after a model turn). A guest is told approvals need an identity instead. Returns
 * the session patch to commit.
 */
export function askToConfirm(context: FlowContext, tool: Tool, args: Record<string, unknown>, approval: ApprovalNeed): SessionPatch {
  if (context.session.identity === undefined) {
    say(context, 'APPROVAL_NEEDS_IDENTITY')
    return {}
  }
  // The request names the tool as the approvals object will find it (an MCP tool by its server).
  const ref = toolRef(tool)
  const details = requestDetails({ tool: ref.tool, argsJson: JSON.stringify(args) })
  const prompt = render(context, 'APPROVAL_CONFIRM', { details, tool: ref.tool, approvers: approval.approvers.join(', ') })
  const items = [
    { id: 'yes', text: render(context, 'APPROVAL_YES') },
    { id: 'no', text: render(context, 'APPROVAL_NO') },
  ]
  return ask(context, prompt, items, { kind: 'confirm', ...ref, args, approval })
}

async function confirm(
  context: FlowContext,
  id: string,
  choice: string,
  question: Extract<Question, { kind: 'confirm' }>,
  closed: SessionPatch,
): Promise<FlowResult> {
  const { session, approvals } = context
  if (choice !== 'yes' || session.identity === undefined || !approvals) {
    if (choice === 'yes') context.log.warn('approval request not submitted', { reason: approvals ? 'logged out' : 'no approvals object' })
    say(context, 'APPROVAL_NOT_SUBMITTED')
    return { session: closed }
  }
  await approvals.submit({
    id,
    tool: question.tool,
    ...(question.server === undefined ? {} : { server: question.server }),
    argsJson: JSON.stringify(question.args),
    requester: { identity: session.identity, roles: session.roles, connectionId: context.connectionId },
    approvers: question.approval.approvers,
    timeoutMinutes: question.approval.timeoutMinutes,
  })
  say(context, 'APPROVAL_SUBMITTED')
  return { session: closed }
}

/** The item of `request` in a list: its number, then what it is. */
const listItem = (request: ApprovalRequest, index: number, withRequester: boolean) => ({
  id: request.id,
  text: `${index + 1}. ${withRequester ? `${request.requester}: ` : ''}${requestDetails(request)}`.slice(0, 1024),
})

/** Action `my-approval-requests`: the user's pending requests; choosing one offers to cancel it. */
export async function myApprovalRequests(context: FlowContext): Promise<FlowResult> {
  const mine = (await context.approvals?.mine(context.session.identity)) ?? []
  if (mine.length === 0) {
    say(context, 'APPROVAL_NONE')
    return {}
  }
  const items = mine.slice(0, MAX_LISTED).map((request, index) => listItem(request, index, false))
  return { session: ask(context, render(context, 'APPROVAL_LIST_MINE'), items, { kind: 'mine' }) }
}

/** Action `pending-approvals`: the pending requests the user may approve; choosing one shows it. */
export async function pendingApprovals(context: FlowContext): Promise<FlowResult> {
  const pending = (await context.approvals?.actionable(principal(context))) ?? []
  if (pending.length === 0) {
    say(context, 'APPROVAL_NONE')
    return {}
  }
  const listed = pending.slice(0, MAX_LISTED)
  const items = listed.map((request, index) => listItem(request, index, true))
  const requests = Object.fromEntries(
    listed.map((request) => [request.id, { requester: request.requester, details: requestDetails(request), createdAt: request.createdAt }]),
  )
  return { session: ask(context, render(context, 'APPROVAL_LIST_PENDING'), items, { kind: 'pending', requests }) }
}

async function chooseOwn(context: FlowContext, requestId: string): Promise<FlowResult> {
  const request = (await context.approvals?.mine(context.session.identity))?.find((candidate) => candidate.id === requestId)
  if (!request) {
    say(context, 'APPROVAL_NOT_PENDING')
    return { session: withQuestions(stateOf(context.session).questions ?? {}) }
  }
  const details = requestDetails(request)
  const items = [
    { id: 'cancel', text: render(context, 'APPROVAL_CANCEL') },
    { id: 'keep', text: render(context, 'APPROVAL_KEEP') },
  ]
  return { session: ask(context, render(context, 'APPROVAL_CANCEL_CONFIRM', { details }), items, { kind: 'cancel', requestId, details }) }
}

function choosePending(context: FlowContext, requestId: string, question: Extract<Question, { kind: 'pending' }>): FlowResult {
  const request = question.requests[requestId]
  if (!request) return { session: withQuestions(stateOf(context.session).questions ?? {}) }
  const prompt = render(context, 'APPROVAL_REVIEW', { ...request, createdAt: minuteOf(request.createdAt) })
  const items = [
    { id: 'approve', text: render(context, 'APPROVAL_APPROVE') },
    { id: 'reject', text: render(context, 'APPROVAL_REJECT') },
  ]
  const review: Question = { kind: 'review', requestId, requester: request.requester, details: request.details }
  return { session: ask(context, prompt, items, review) }
}

/** The text telling the actor what their action did. */
const DONE: Record<ApprovalAction, TextKey> = {
  approve: 'APPROVAL_DONE_APPROVED',
  reject: 'APPROVAL_DONE_REJECTED',
  cancel: 'APPROVAL_DONE_CANCELLED',
}

async function act(context: FlowContext, requestId: string, action: ApprovalAction, closed: SessionPatch): Promise<FlowResult> {
  const outcome: ResolveOutcome = context.approvals
    ? await context.approvals.resolve(requestId, action, principal(context))
    : { ok: false, reason: 'not-found' }
  if (outcome.ok) {
    say(context, DONE[action], { requester: outcome.request.requester, details: requestDetails(outcome.request) })
  } else {
    say(context, outcome.reason === 'not-allowed' ? 'APPROVAL_NOT_ALLOWED' : 'APPROVAL_NOT_PENDING')
  }
  return { session: closed }
}
