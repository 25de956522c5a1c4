/**
 * The tools registry: every tool the pack configures (external HTTP tools, bundled tools), each
 * with its access policy. Which ones a user sees is tools/policy.ts's decision.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import { z } from 'zod'
import { statisticsTool, StatisticsFetcherSettings } from './bundled/statistics.ts'
import { httpTool, parseHttpTools } from './http.ts'
import type { Tool } from './types.ts'

export { decideCall, mayUse, visibleTo } from './policy.ts'
export type { Tool, ToolContext, ToolPolicy } from './types.ts'

/** The parts of the `tools` section the registry reads. */
const ToolsSection = z.object({
  dynamicConfig: z.unknown().optional(),
  bundled: z.object({ statisticsFetcher: z.unknown().optional() }).loose().optional(),
}).loose()

/**
 * The tools `config` configures, and a warning per problem (an entry that is not a tool
 * definition is left out, never half-used).
 */
export function buildTools(config: AgentPackConfig): { tools: Tool[]; warnings: string[] } {
  const section = ToolsSection.safeParse(config.tools ?? {})
  if (!section.success) return { tools: [], warnings: ['tools: expected a mapping'] }
  const { tools: definitions, problems } = parseHttpTools(section.data.dynamicConfig)
  const tools: Tool[] = definitions.map(httpTool)
  const statistics = StatisticsFetcherSettings.safeParse(section.data.bundled?.statisticsFetcher ?? {})
  if (statistics.success) {
    const tool = statisticsTool(statistics.data)
    if (tool) tools.push(tool)
  } else {
    problems.push(...statistics.error.issues.map((issue) => `tools.bundled.statisticsFetcher.${issue.path.join('.')}: ${issue.message}`))
  }
  const names = new Set<string>()
  const unique = tools.filter((tool) => {
    if (names.has(tool.name)) {
      problems.push(`tools: '${tool.name}' is defined twice; the first definition is used`)
      return false
    }
    names.add(tool.name)
    return true
  })
  return { tools: unique, warnings: problems }
}
