/**
 * The tools registry: every tool the pack configures (external HTTP tools, bundled tools), each
 * with its access policy. Which ones a user sees is tools/policy.ts's decision.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import { statisticsTool } from './bundled/statistics.ts'
import { httpTool } from './http.ts'
import type { Tool } from './types.ts'

export { decideCall, mayUse, visibleTo } from './policy.ts'
export type { Tool, ToolContext, ToolPolicy } from './types.ts'

/** Tool names every provider accepts (chat-completions functions, Messages API tools). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

/**
 * The tools `config` configures (already validated by the agent-pack loader), and a warning per
 * tool left out: a name the providers refuse, or a name defined twice (the first one is used).
 */
export function buildTools(config: AgentPackConfig): { tools: Tool[]; warnings: string[] } {
  const warnings: string[] = []
  const candidates: Tool[] = config.tools.dynamicConfig.map(httpTool)
  const statistics = statisticsTool(config.tools.bundled.statisticsFetcher)
  if (statistics) candidates.push(statistics)
  const names = new Set<string>()
  const tools = candidates.filter((tool, index) => {
    if (!TOOL_NAME.test(tool.name)) {
      warnings.push(
        `tools.dynamicConfig[${index}].name: '${tool.name}' is not a tool name models accept (letters, digits, _ and -, at most 64); tool left out`,
      )
      return false
    }
    if (names.has(tool.name)) {
      warnings.push(`tools: '${tool.name}' is defined twice; the first definition is used`)
      return false
    }
    names.add(tool.name)
    return true
  })
  return { tools, warnings }
}
