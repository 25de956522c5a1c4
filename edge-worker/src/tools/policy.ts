/**
 * Who may use which tool, and which calls wait for an approval: pure decisions over a principal
 * (manifest spec "Authentication", rules 3 to 5, and "mcp", `toolAccess`).
 *
 * - Admins bypass every check, approvals included.
 * - `requiresAuth`: a guest never sees the tool. `roles`: only users holding one of them.
 * - `access` (a server's `toolAccess`), role-based when it has `roles`: a user's roles are theirs
 *   plus `guest` (a guest has `guest` only, so logging in never loses a tool); a tool listed
 *   under one of them is allowed, a tool listed only under other roles is denied, and an unlisted
 *   tool follows `default`: `none` (the default) and the legacy `admin` deny it, `all` allows it
 *   to authenticated users, the legacy `public` to everyone.
 * - `access` without `roles` (legacy): `default: public` (the default) or `all` allows every tool
 *   but those in `adminOnly`; `admin` or `none` allows only those in `public`.
 * - `access.approval`: a call of a tool a policy lists waits for a user holding one of the
 *   policy's `approvers` roles, unless the caller holds one (self-approval, rule 5).
 */
import type { Principal } from '../session/index.ts'
import type { Tool, ToolAccess } from './types.ts'

/** The role that applies to unauthenticated users in `toolAccess.roles`. */
export const GUEST_ROLE = 'guest'

/** What the policy reads of a tool: its registry name, its policy and, for an MCP tool, its server's names. */
export type PolicySubject = Pick<Tool, 'name' | 'policy' | 'mcp'>

/**
 * The tool's name in its `access` lists: an MCP tool's own name on its server (`toolAccess` lists
 * those, manifest spec "mcp"), which differs from its registry name when that was taken.
 */
const accessName = (tool: PolicySubject) => tool.mcp?.tool ?? tool.name

/** Whether `access` (without the admin bypass) lets `principal` use tool `name`. */
export function accessAllows(access: ToolAccess, name: string, principal: Principal): boolean {
  const authenticated = principal.identity !== undefined
  if (access.roles === undefined) {
    const fallback = access.default ?? 'public'
    if (fallback === 'admin' || fallback === 'none') return access.public?.includes(name) ?? false
    return !(access.adminOnly?.includes(name) ?? false)
  }
  const roles = access.roles
  const held = authenticated ? [...principal.roles, GUEST_ROLE] : [GUEST_ROLE]
  if (held.some((role) => roles[role]?.includes(name))) return true
  if (Object.values(roles).some((tools) => tools.includes(name))) return false
  const fallback = access.default ?? 'none'
  if (fallback === 'all') return authenticated
  return fallback === 'public'
}

/** Whether `principal` may use `tool` (its `requiresAuth`, `roles` and `access`). */
export function mayUse(tool: PolicySubject, principal: Principal): boolean {
  const { policy } = tool
  if (principal.admin) return true
  if (policy.requiresAuth && principal.identity === undefined) return false
  if (policy.roles?.length && !principal.roles.some((role) => policy.roles!.includes(role))) return false
  return policy.access === undefined || accessAllows(policy.access, accessName(tool), principal)
}

/** The tools `principal` may use: the only ones the model is shown. */
export function visibleTo<T extends PolicySubject>(tools: readonly T[], principal: Principal): T[] {
  return tools.filter((tool) => mayUse(tool, principal))
}

/** Whether `principal` may approve a request whose policy names `approvers` (an approver role, or an admin). */
export function mayApprove(principal: Principal, approvers: readonly string[]): boolean {
  return principal.admin || (principal.identity !== undefined && principal.roles.some((role) => approvers.includes(role)))
}

/** What a call that waits for approval needs: who may approve it and how long it may wait. */
export interface ApprovalNeed {
  /** Roles that may approve (the policy's `approvers`). */
  approvers: string[]
  /** Minutes before the request expires (the policy's `timeoutMinutes`). */
  timeoutMinutes: number
}

/** The approval `principal`'s call of `tool` waits for, or undefined when it runs now (no policy, admin, self-approval). */
export function approvalNeeded(tool: PolicySubject, principal: Principal): ApprovalNeed | undefined {
  const policy = tool.policy.access?.approval?.find((candidate) => candidate.tools.includes(accessName(tool)))
  if (!policy || mayApprove(principal, policy.approvers)) return undefined
  return { approvers: [...policy.approvers], timeoutMinutes: policy.timeoutMinutes }
}

/** The decision on one call: run the tool, ask for an approval first, or why not. */
export type CallDecision = { allowed: true; tool: Tool; approval?: ApprovalNeed } | { allowed: false; reason: string }

/**
 * How a stored approval request names its tool, whatever the registry called it in the
 * conversation that asked: an MCP tool by its server and its own name there, any other tool by
 * its registry name. Registry names of MCP tools depend on which servers were listed before
 * (a user's own servers, one whose listing failed), so they differ between a conversation and
 * the approvals object.
 */
export interface ToolRef {
  /** The tool's name in its access lists (`accessName`). */
  tool: string
  /** Its MCP server, when it has one. */
  server?: string
}

/** The `ToolRef` of `tool`. */
export function toolRef(tool: PolicySubject): ToolRef {
  return tool.mcp ? { tool: tool.mcp.tool, server: tool.mcp.server } : { tool: tool.name }
}

/**
 * Decides a call of tool `name` by `principal` among `tools`. A name the model was not shown is
 * denied the same way as an unknown one, so a guessed name reveals nothing.
 */
export function decideCall(tools: readonly Tool[], name: string, principal: Principal): CallDecision {
  const tool = tools.find((candidate) => candidate.name === name)
  if (!tool || !mayUse(tool, principal)) return { allowed: false, reason: `no tool named '${name}' is available to this user` }
  const approval = approvalNeeded(tool, principal)
  return approval ? { allowed: true, tool, approval } : { allowed: true, tool }
}

/**
 * Decides the run of an approved call of the tool `ref` names, by its requester `principal`,
 * among `tools`: the tool must still be there and the requester still allowed to use it (roles
 * may have changed meanwhile); its approval is not asked again. A tool of a server the tools do
 * not include (a user-controlled server, whose configuration is the requester's own) is denied.
 */
export function decideApprovedCall(tools: readonly Tool[], ref: ToolRef, principal: Principal): CallDecision {
  const tool = tools.find((candidate) => candidate.mcp?.server === ref.server && accessName(candidate) === ref.tool)
  if (!tool || !mayUse(tool, principal)) {
    const where = ref.server === undefined ? '' : ` on MCP server '${ref.server}'`
    return { allowed: false, reason: `no tool named '${ref.tool}'${where} is available to this user` }
  }
  return { allowed: true, tool }
}
