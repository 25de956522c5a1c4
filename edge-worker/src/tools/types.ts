/**
 * A tool the model may call: its description for the model, its access
 * policy, and how it runs.
 */
import type { Principal } from '../session/index.ts'
import type { GuardedFetch } from '../net/outbound.ts'

/** Who may use a tool (tools/policy.ts decides). */
export interface ToolPolicy {
  /** Only authenticated users (an identity in the session) may use it. */
  requiresAuth: boolean
  /** When set and not empty, only users holding one of these roles may use it (admins always may). */
  roles?: readonly string[]
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
  /** Runs the tool; the result is text for the model. @throws on failure (the model is told). */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<string>
}
