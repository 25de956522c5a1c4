/**
 * What each party is told after a transition of an approval request (hologram-ai-agent's RBAC
 * and approval lifecycle, "State change side effects"). Pure. Every party's connections get a
 * notice, texts or not, so their menus and badges are refreshed.
 *
 * | transition | requester | approvers |
 * |---|---|---|
 * | created (pending) | nothing more (the confirmation said APPROVAL_SUBMITTED) | APPROVAL_NEW |
 * | approved | APPROVAL_APPROVED, then APPROVAL_RESULT (the tool's result) | APPROVAL_APPROVED_BY, but to the approver who acted |
 * | rejected | APPROVAL_REJECTED | nothing |
 * | cancelled | nothing (the cancel said APPROVAL_DONE_CANCELLED) | APPROVAL_CANCELLED_BY_REQUESTER |
 * | expired | APPROVAL_EXPIRED | nothing |
 */
import type { ApprovalRequest, NoticeText } from './types.ts'

/** Longest argument text shown in a request's details, characters. */
const MAX_ARGS_CHARS = 300

/** The one-line description of `request` shown to people: the tool and its arguments. */
export function requestDetails(request: Pick<ApprovalRequest, 'tool' | 'argsJson'>): string {
  const args = request.argsJson
  return `${request.tool} ${args.length > MAX_ARGS_CHARS ? `${args.slice(0, MAX_ARGS_CHARS)}…` : args}`
}

/** The texts of the transition of `request` to its current status, for its requester and for its approvers (`approver` excepted). */
export function transitionTexts(request: ApprovalRequest): { requester: NoticeText[]; approvers: NoticeText[] } {
  const params = {
    requester: request.requester,
    details: requestDetails(request),
    approver: request.approver ?? '',
    tool: request.tool,
    result: request.result ?? '',
  }
  const text = (key: string): NoticeText => ({ key, params })
  switch (request.status) {
    case 'pending':
      return { requester: [], approvers: [text('APPROVAL_NEW')] }
    case 'approved':
      return { requester: [text('APPROVAL_APPROVED'), text('APPROVAL_RESULT')], approvers: [text('APPROVAL_APPROVED_BY')] }
    case 'rejected':
      return { requester: [text('APPROVAL_REJECTED')], approvers: [] }
    case 'cancelled':
      return { requester: [], approvers: [text('APPROVAL_CANCELLED_BY_REQUESTER')] }
    case 'expired':
      return { requester: [text('APPROVAL_EXPIRED')], approvers: [] }
  }
}
