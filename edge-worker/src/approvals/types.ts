/**
 * The data of approval requests, as the approvals object's RPC returns it and the approvals flow
 * reads it (manifest spec "States and transitions"; hologram-ai-agent's RBAC and approval
 * lifecycle): pending → approved | rejected | cancelled | expired.
 */

/** Where a request is in its lifecycle. Only `pending` moves; the others are final. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'cancelled' | 'expired'

/** Who acts on a request (session/ `Principal`, with an identity). */
export interface Actor {
  identity?: string
  roles: readonly string[]
  admin: boolean
}

/** What the requester's confirmation submits. */
export interface ApprovalSubmission {
  /** The request id: the confirmation question's id, so a retried submit is the same request. */
  id: string
  /**
   * The tool's name: an MCP tool's own name on `server`, any other tool's registry name
   * (tools/policy.ts `ToolRef`, never an MCP tool's registry name, which depends on the caller).
   */
  tool: string
  /** The tool's MCP server, when it has one. */
  server?: string
  /** The call's arguments as JSON text (an object); text keeps the RPC types finite. */
  argsJson: string
  requester: { identity: string; roles: string[]; connectionId: string }
  /** Roles that may approve (the policy's `approvers`). */
  approvers: string[]
  /** Minutes before the request expires (the policy's `timeoutMinutes`; fractions allowed). */
  timeoutMinutes: number
}

/** One approval request. Times are ms since the epoch. */
export interface ApprovalRequest {
  id: string
  tool: string
  server: string | null
  /** The call's arguments as JSON text (an object). */
  argsJson: string
  requester: string
  requesterRoles: string[]
  /** The connection the request was made on. */
  requesterConnection: string
  approvers: string[]
  status: ApprovalStatus
  /** Who approved or rejected it (null while pending, cancelled or expired). */
  approver: string | null
  createdAt: number
  resolvedAt: number | null
  expiresAt: number
  /** The tool's result once an approved request has run (`error: …` when it failed). */
  result: string | null
}

/** What a user does to a pending request: approvers approve or reject, the requester cancels. */
export type ApprovalAction = 'approve' | 'reject' | 'cancel'

/** The outcome of an action: the request as it now is, or why nothing changed. */
export type ResolveOutcome =
  | { ok: true; request: ApprovalRequest }
  | { ok: false; reason: 'not-found' | 'not-allowed' | 'not-pending'; request?: ApprovalRequest }

/** The two menu badges (manifest spec "flows.menu", `badge`). */
export interface ApprovalCounts {
  /** Pending requests the user submitted. */
  approvalRequestCount: number
  /** Pending requests of others the user may approve. */
  pendingApprovalCount: number
}

/** A text of a notice: a text key and the values of its placeholders (`{requester}`, `{details}`, …). */
export interface NoticeText {
  key: string
  params: Record<string, string>
}

/**
 * What the approvals object hands a conversation after a transition: texts to say there (maybe
 * none: then only the menu is refreshed, with fresh badge counts). `id` is unique per transition
 * and connection (`approval:<request id>:<status>:<connection id>`), so a notice delivered twice
 * is handled once.
 */
export interface ApprovalNotice {
  id: string
  texts: NoticeText[]
}
