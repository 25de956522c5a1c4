/**
 * MCP tools as entries of the tools registry (tools/): each listed tool with its JSON Schema, its
 * server's `toolAccess` in its policy (`policy.access`), and a call through its server.
 *
 * Naming rule (documented in docs/agent-pack.md "mcp"): a tool keeps the name its server gives it
 * when that name is one models accept (letters, digits, `_` and `-`, at most 64) and no tool
 * before it has it; tools before it are the pack's own tools (`tools`), then the tools of the
 * servers listed earlier in `mcp.servers`, in the server's order. Otherwise it is named
 * `<server>_<tool>` (other characters become `_`, cut to 64), with `_2`, `_3`… added if that too
 * is taken. `Tool.mcp` keeps the server's own name, which `toolAccess` lists.
 */
import { TOOL_NAME } from '../tools/index.ts'
import type { Tool } from '../tools/types.ts'
import type { ListedTool, McpServerConfig } from './types.ts'

/** Longest tool name every provider accepts. */
const MAX_NAME = 64

/** Calls tool `tool` of the server the tools were listed from. */
export type McpInvoke = (tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<string>

/** The registry name of `tool` of `server`, given the names already `taken` (see the module comment). */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  if (TOOL_NAME.test(tool) && !taken.has(tool)) return tool
  const base = `${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_NAME)
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) {
    const suffix = `_${n}`
    const name = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`
    if (!taken.has(name)) return name
  }
}

/** An object schema for the model: the tool's `inputSchema`, or an empty object schema when it has none usable. */
function parametersOf(tool: ListedTool): Record<string, unknown> {
  const schema = tool.inputSchema
  return schema && typeof schema === 'object' && schema.type === 'object' ? schema : { type: 'object', properties: {} }
}

/**
 * The registry entries of `listed`, the tools of `server`; names are added to `taken` as they are
 * given out.
 */
export function mcpTools(server: McpServerConfig, listed: readonly ListedTool[], invoke: McpInvoke, taken: Set<string>): Tool[] {
  return listed.map((tool) => {
    const name = mcpToolName(server.name, tool.name, taken)
    taken.add(name)
    return {
      name,
      description: tool.description ?? `Tool ${tool.name} of MCP server ${server.name}.`,
      parameters: parametersOf(tool),
      policy: { requiresAuth: false, access: server.toolAccess },
      mcp: { server: server.name, tool: tool.name },
      execute: (args, { signal }) => invoke(tool.name, args, signal),
    }
  })
}
