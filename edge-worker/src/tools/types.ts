/**
 * A tool the model may call: its description for the model, its access
 * policy, and how it runs.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { Principal } from '../session/index.ts'
import type { GuardedFetch } from '../net/outbound.ts'

/** Who may use a tool (tools/policy.ts decides). */
export interface ToolPolicy {
  /** Only authenticated users (an identity in the session) may use it. */
  requiresAuth: boolean
  /** When set and not empty, only users holding one of these roles may use it (admins always may). */
  roles?: readonly string[]
  /**
   * For a tool of an MCP server: that server's `toolAccess` (manifest spec "mcp"), decided by
   * tools/policy.ts. Undefined when the server sets none.
   */
  access?: AgentPackConfig['mcp']['servers'][number]['toolAccess']
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
