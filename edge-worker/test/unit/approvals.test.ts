/**
 * The approvals flow and what it shows, with the approvals object replaced by a fake port (the
 * object itself is tested end to end in test/e2e/approvals.test.ts): notices in the user's
 * language, the confirmation submitting a request under the question's id, first-approver-wins
 * as the loser sees it, badges and approval menu items from the counts, and each transition's texts.
 */
import { resolveAgentPack } from '@parley/shared/agent-pack'
import type { TunnelCommand } from '@parley/shared/tunnel'
import { describe, expect, it } from 'vitest'
import { transitionTexts } from '../../src/approvals/notices.ts'
import type { ApprovalRequest, ApprovalSubmission } from '../../src/approvals/types.ts'
import { askToConfirm } from '../../src/flows/approvals/index.ts'
import type { ApprovalsPort } from '../../src/flows/approvals/port.ts'
import { refreshMenu } from '../../src/flows/menu/index.ts'
import { handleEvent } from '../../src/flows/step.ts'
import type { FlowEvent } from '../../src/flows/types.ts'
import { createLogger } from '../../src/logging/index.ts'
import { applyPatch, newSession, type Session } from '../../src/session/index.ts'
import type { Tool } from '../../src/tools/types.ts'

const CONNECTION = '11111111-1111-4111-8111-111111111111'
const config = resolveAgentPack(
  {
    path: 'agent-pack.yaml',
    text: `
flows:
  authentication: { enabled: true }
  menu:
    items:
      - { id: mine, labelKey: MY_APPROVAL_REQUESTS, action: my-approval-requests, visibleWhen: hasApprovalRequests, badge: approvalRequestCount }
      - { id: todo, labelKey: PENDING_APPROVALS, action: pending-approvals, visibleWhen: hasPendingApprovals, badge: pendingApprovalCount }
      - { id: logout, labelKey: LOGOUT, action: logout, visibleWhen: authenticated }
`,
  },
  {},
).config

const request: ApprovalRequest = {
  id: 'r1',
  tool: 'send_money',
  server: 'wise',
  argsJson: JSON.stringify({ query: '5 EUR' }),
  requester: 'rae',
  requesterRoles: ['finance'],
  requesterConnection: CONNECTION,
  approvers: ['manager'],
  status: 'pending',
  approver: null,
  createdAt: 0,
  resolvedAt: null,
  expiresAt: 60_000,
  result: null,
}

/** A fake approvals object recording submissions; `resolve` always loses (another approver was first). */
function fakePort(counts = { approvalRequestCount: 0, pendingApprovalCount: 0 }) {
  const submitted: ApprovalSubmission[] = []
  const port: ApprovalsPort = {
    submit: async (input) => {
      submitted.push(input)
      return request
    },
    resolve: async () => ({ ok: false, reason: 'not-pending', request: { ...request, status: 'approved', approver: 'flo' } }),
    counts: async () => counts,
    mine: async () => [request],
    actionable: async () => [request],
  }
  return { port, submitted }
}

const authenticated = (language = 'en'): Session => ({ ...newSession(), identity: 'rae', roles: ['finance'], language })

async function step(event: FlowEvent, session: Session, port: ApprovalsPort) {
  return handleEvent({
    event,
    eventId: 'e1',
    connectionId: CONNECTION,
    session,
    config,
    now: 0,
    log: createLogger('test', 'error'),
    chat: { tools: [], fetch: fetch, history: () => [] },
    approvals: port,
  })
}

const texts = (commands: TunnelCommand[]) =>
  commands.flatMap((command) => (command.name === 'send-message' && command.message.type === 'text' ? [command.message.content] : []))
const questionOf = (commands: TunnelCommand[]) =>
  commands.flatMap((command) => (command.name === 'send-message' && command.message.type === 'menu-display' ? [command.message] : []))[0]
const select = (threadId: string, id: string): FlowEvent => ({
  type: 'message-received',
  message: { type: 'menu-select', id: 'm', connectionId: CONNECTION, timestamp: 0, threadId, menuItems: [{ id }] },
})

describe('approval notices', () => {
  it('are said in the user language, with their placeholders filled', async () => {
    const { port } = fakePort()
    const { requester } = transitionTexts({ ...request, status: 'expired' })
    const { commands } = await step({ type: 'approval-notice', texts: requester }, authenticated('es'), port)
    expect(texts(commands)).toEqual(['Tu solicitud expiró: send_money {"query":"5 EUR"}.'])
  })

  it('each transition tells the requester and the approvers what the lifecycle says', () => {
    const keys = (status: ApprovalRequest['status']) => {
      const { requester, approvers } = transitionTexts({ ...request, status })
      return [requester.map((text) => text.key), approvers.map((text) => text.key)]
    }
    expect(keys('pending')).toEqual([[], ['APPROVAL_NEW']])
    expect(keys('approved')).toEqual([['APPROVAL_APPROVED', 'APPROVAL_RESULT'], ['APPROVAL_APPROVED_BY']])
    expect(keys('rejected')).toEqual([['APPROVAL_REJECTED'], []])
    expect(keys('cancelled')).toEqual([[], ['APPROVAL_CANCELLED_BY_REQUESTER']])
    expect(keys('expired')).toEqual([['APPROVAL_EXPIRED'], []])
  })
})

describe('confirmation and review', () => {
  // An MCP tool the registry renamed (its own name was taken): the request names it by its server.
  const tool: Tool = {
    name: 'wise_send_money',
    description: 'd',
    parameters: {},
    policy: { requiresAuth: true },
    mcp: { server: 'wise', tool: 'send_money' },
    execute: async () => 'x',
  }

  it('Yes submits one request under the question id; No submits nothing', async () => {
    const { port, submitted } = fakePort()
    const sent: TunnelCommand[] = []
    const session = authenticated()
    const patch = askToConfirm(
      {
        event: { type: 'timer', at: 0 },
        eventId: 'e0',
        connectionId: CONNECTION,
        session,
        config,
        now: 0,
        log: createLogger('test', 'error'),
        chat: { tools: [tool], fetch, history: () => [] },
        approvals: port,
        send: (command) => sent.push(command),
      },
      tool,
      { query: '5 EUR' },
      { approvers: ['manager', 'cfo'], timeoutMinutes: 60 },
    )
    const question = questionOf(sent)!
    expect(question.prompt).toBe(
      'send_money {"query":"5 EUR"} requires approval from a user with the role manager, cfo. Submit an approval request?',
    )
    expect(question.menuItems).toEqual([
      { id: 'yes', text: 'Yes' },
      { id: 'no', text: 'No' },
    ])
    const asked = applyPatch(session, patch)
    const yes = await step(select(question.id!, 'yes'), asked, port)
    expect(texts(yes.commands)).toEqual(["Your request has been submitted. You'll be notified when it's processed."])
    expect(submitted).toEqual([
      {
        id: question.id,
        tool: 'send_money',
        server: 'wise',
        argsJson: '{"query":"5 EUR"}',
        requester: { identity: 'rae', roles: ['finance'], connectionId: CONNECTION },
        approvers: ['manager', 'cfo'],
        timeoutMinutes: 60,
      },
    ])
    // The question is closed: answering it again is not the approvals flow's any more.
    const again = await step(select(question.id!, 'yes'), yes.session, port)
    expect(submitted).toHaveLength(1)
    expect(texts(again.commands)).toEqual([])

    const no = await step(select(question.id!, 'no'), asked, port)
    expect(texts(no.commands)).toEqual(['Request cancelled.'])
  })

  it('an approver who answers after another one was first is told the request is no longer pending', async () => {
    const { port } = fakePort({ approvalRequestCount: 0, pendingApprovalCount: 1 })
    const approver: Session = { ...newSession(), identity: 'max', roles: ['manager'], language: 'en' }
    // The menu shows the item once the counts say so; selecting it lists the requests.
    const shown = await step(
      { type: 'connection-state-updated', connectionId: CONNECTION, invitationId: 'i', state: 'completed' },
      approver,
      port,
    )
    const listed = await step(
      {
        type: 'message-received',
        message: { type: 'contextual-menu-select', id: 'm', connectionId: CONNECTION, timestamp: 0, threadId: null, selectionId: 'todo' },
      },
      shown.session,
      port,
    )
    const list = questionOf(listed.commands)!
    expect(list.menuItems).toEqual([{ id: 'r1', text: '1. rae: send_money {"query":"5 EUR"}' }])
    const reviewed = await step(select(list.id!, 'r1'), listed.session, port)
    const review = questionOf(reviewed.commands)!
    expect(review.prompt).toBe('Request from rae, made 1970-01-01 00:00 UTC: send_money {"query":"5 EUR"}. Approve or reject it?')
    const lost = await step(select(review.id!, 'approve'), reviewed.session, port)
    expect(texts(lost.commands)).toEqual(['This request is no longer pending.'])
  })
})

describe('approval badges in the menu', () => {
  const completed = { type: 'connection-state-updated', connectionId: CONNECTION, invitationId: 'i', state: 'completed' } as const
  const titles = (command?: TunnelCommand) =>
    command?.name === 'send-message' && command.message.type === 'contextual-menu-update'
      ? command.message.options.map((option) => option.title)
      : []

  it('shows the items with their counts for an authenticated user, and none for a guest', () => {
    const counts = { approvalRequestCount: 2, pendingApprovalCount: 1 }
    expect(titles(refreshMenu(completed, authenticated(), config, CONNECTION, counts).command)).toEqual([
      'Approval requests (2)',
      'Pending approvals (1)',
      'Log out',
    ])
    expect(
      titles(refreshMenu(completed, authenticated(), config, CONNECTION, { approvalRequestCount: 0, pendingApprovalCount: 0 }).command),
    ).toEqual(['Log out'])
    expect(refreshMenu(completed, newSession(), config, CONNECTION, counts).command).toMatchObject({
      message: { options: [] },
    })
  })
})
