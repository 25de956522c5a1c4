/**
 * A tool the model may call: its description for the model, its access
 * policy, and how it runs.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { Principal } from '../session/index.ts'
import type { GuardedFetch } from '../net/outbound.ts'

/**
 * A server's `toolAccess` as the manifest resolves it (manifest spec "mcp"): the legacy model
 * (`default: public | admin`, `public`, `adminOnly`) or, when `roles` is present, the role-based
 * one (`default: none | all`, `roles`, `approval`).
 */
export type ToolAccess = NonNullable<AgentPackConfig['mcp']['servers'][number]['toolAccess']>

/** One approval policy of a `toolAccess` (`tools`, `approvers`, `timeoutMinutes`). */
export type ApprovalPolicy = NonNullable<ToolAccess['approval']>[number]

/** Who may use a tool (tools/policy.ts decides). */
export interface ToolPolicy {
  /** Only authenticated users (an identity in the session) may use it. */
  requiresAuth: boolean
  /** When set and not empty, only users holding one of these roles may use it (admins always may). */
  roles?: readonly string[]
  /**
   * The `toolAccess` governing the tool (an MCP server's, attached by mcp/ to each of its tools);
   * when set, tools/policy.ts also decides by it, approvals included.
   */
  access?: ToolAccess
}

/** What a running tool may use. */
export interface ToolContext {
  principal: Principal
  /** The pack's `integrations` section, as given (free-form). */
  integrations: unknown
  /** `fetch` through the outbound guard: tools never call `fetch` directly. */
  fetch: GuardedFetch
  signal: AbortSignal
}

export interface Tool {
  name: string
  description: string
  /** JSON Schema (object) of the arguments. */
  parameters: Record<string, unknown>
  policy: ToolPolicy
  /** For a tool of an MCP server: the server's name and the tool's own name there (which `toolAccess` lists). */
  mcp?: { server: string; tool: string }
  /** Runs the tool; the result is text for the model. @throws on failure (the model is told). */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<string>
}
