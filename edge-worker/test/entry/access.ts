/**
 * Test-only tool access for the end-to-end approvals test: the pack's HTTP tools governed by the
 * `toolAccess` in the worker var `TEST_TOOL_ACCESS` (JSON), as mcp/ governs an MCP server's tools
 * with the server's `toolAccess`. Served only by the test entry, never the production bundle.
 */
import type { Env } from '../../src/env.ts'
import type { Tool, ToolAccess } from '../../src/tools/types.ts'

/** `tools` with `policy.access` set from `TEST_TOOL_ACCESS`, or unchanged when it is not set. */
export function withTestAccess(tools: readonly Tool[], env: Env): Tool[] {
  if (typeof env.TEST_TOOL_ACCESS !== 'string') return [...tools]
  const access = JSON.parse(env.TEST_TOOL_ACCESS) as ToolAccess
  return tools.map((tool) => ({ ...tool, policy: { ...tool.policy, access } }))
}
