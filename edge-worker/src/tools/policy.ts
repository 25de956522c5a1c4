/**
 * Who may use which tool: pure decisions over a principal (manifest spec "Authentication",
 * rules 3 and 4). Admins bypass every check; a guest never sees a `requiresAuth` tool; a tool
 * restricted to roles is for users holding one of them.
 */
import type { Principal } from '../session/index.ts'
import type { Tool, ToolPolicy } from './types.ts'

/** Whether `principal` may use a tool with `policy`. */
export function mayUse(policy: ToolPolicy, principal: Principal): boolean {
  if (principal.admin) return true
  if (policy.requiresAuth && principal.identity === undefined) return false
  if (policy.roles?.length) return principal.roles.some((role) => policy.roles!.includes(role))
  return true
}

/** The tools `principal` may use: the only ones the model is shown. */
export function visibleTo<T extends Tool>(tools: readonly T[], principal: Principal): T[] {
  return tools.filter((tool) => mayUse(tool.policy, principal))
}

/** The decision on one call: the tool to run, or why not. */
export type CallDecision = { allowed: true; tool: Tool } | { allowed: false; reason: string }

/**
 * Decides a call of tool `name` by `principal` among `tools`. A name the model was not shown is
 * denied the same way as an unknown one, so a guessed name reveals nothing.
 */
export function decideCall(tools: readonly Tool[], name: string, principal: Principal): CallDecision {
  const tool = tools.find((candidate) => candidate.name === name)
  if (!tool || !mayUse(tool.policy, principal)) return { allowed: false, reason: `no tool named '${name}' is available to this user` }
  return { allowed: true, tool }
}
