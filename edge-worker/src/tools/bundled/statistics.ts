/**
 * Bundled tool `statistics_fetcher` (`tools.bundled.statisticsFetcher`; env STATISTICS_API_URL,
 * STATISTICS_TOOL_ENABLED, STATISTICS_REQUIRE_AUTH): POSTs a time range, statistic class,
 * granularity and enum filters to the statistics API, as hologram-ai-agent's tool of that name.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { Tool } from '../types.ts'
import { MAX_RESULT_CHARS } from '../http.ts'

/** Used when neither the call nor `defaultStatEnums` gives enum filters. */
const FALLBACK_ENUMS = [{ index: 0, label: 'default', value: 'default', description: 'default fallback value' }]

/** The tool, or undefined when it is disabled or has no endpoint. */
export function statisticsTool(settings: AgentPackConfig['tools']['bundled']['statisticsFetcher']): Tool | undefined {
  const { endpoint } = settings
  if (!settings.enabled || !endpoint) return undefined
  return {
    name: 'statistics_fetcher',
    description: `Fetches statistics (for example ${settings.defaultStatClass}) for a time range, statistic class and granularity.`,
    parameters: {
      type: 'object',
      properties: {
        from: { type: 'string', description: 'Start, ISO 8601 (e.g. 2025-06-01T00:00:00Z)' },
        to: { type: 'string', description: 'End, ISO 8601 (e.g. 2025-06-10T23:59:59Z)' },
        statClass: { type: 'string', description: `Statistic class; default ${settings.defaultStatClass}` },
        statGranularity: { type: 'string', enum: ['HOUR', 'DAY', 'MONTH'] },
        statEnums: { type: 'array', items: { type: 'object' }, description: 'Enum filters: { index, label, value, description }' },
      },
      required: ['from', 'to', 'statGranularity'],
    },
    policy: { requiresAuth: settings.requiresAuth },
    async execute(args, { fetch, signal }) {
      const enums =
        Array.isArray(args.statEnums) && args.statEnums.length
          ? args.statEnums
          : settings.defaultStatEnums?.length
            ? settings.defaultStatEnums
            : FALLBACK_ENUMS
      const payload = {
        from: args.from,
        to: args.to,
        statClass: typeof args.statClass === 'string' && args.statClass ? args.statClass : settings.defaultStatClass,
        statGranularity: args.statGranularity,
        statResultType: 'LIST_AND_SUM',
        statEnums: enums,
      }
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        signal,
      })
      const body = await response.text()
      if (!response.ok) throw new Error(`statistics API answered HTTP ${response.status}`)
      return body.slice(0, MAX_RESULT_CHARS)
    },
  }
}
