/**
 * External HTTP tools (`tools.dynamicConfig`, env LLM_TOOLS_CONFIG), in the format
 * hologram-ai-agent reads: `{ name, description, endpoint, method, authHeader, authToken,
 * requiresAuth }` (validated by the agent-pack loader). The model passes one argument, `query`; it replaces
 * `{query}` in `endpoint` (URL-encoded), and the response body is the result. Calls go through
 * the outbound guard.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { Tool } from './types.ts'

/** Longest response body handed to the model, in characters. */
export const MAX_RESULT_CHARS = 8_000

/** The tool of `definition`. */
export function httpTool(definition: AgentPackConfig['tools']['dynamicConfig'][number]): Tool {
  return {
    name: definition.name,
    description: definition.description,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Free-form query passed to the external service.' } },
      required: ['query'],
    },
    policy: { requiresAuth: definition.requiresAuth },
    async execute(args, { fetch, signal }) {
      const query = typeof args.query === 'string' ? args.query : JSON.stringify(args.query ?? '')
      const url = definition.endpoint.replaceAll('{query}', encodeURIComponent(query))
      const headers: Record<string, string> = definition.authHeader ? { [definition.authHeader]: definition.authToken ?? '' } : {}
      const response = await fetch(url, { method: definition.method, headers, signal })
      const body = await response.text()
      if (!response.ok) throw new Error(`${definition.name} answered HTTP ${response.status}`)
      return body.slice(0, MAX_RESULT_CHARS)
    },
  }
}
