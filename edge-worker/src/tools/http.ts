/**
 * External HTTP tools (`tools.dynamicConfig`, env LLM_TOOLS_CONFIG), in the format
 * hologram-ai-agent reads: a JSON array (or its text) of `{ name, description, endpoint, method,
 * authHeader, authToken, requiresAuth }`. The model passes one argument, `query`; it replaces
 * `{query}` in `endpoint` (URL-encoded), and the response body is the result. Calls go through
 * the outbound guard.
 */
import { z } from 'zod'
import type { Tool } from './types.ts'

/** Longest response body handed to the model, in characters. */
export const MAX_RESULT_CHARS = 8_000

/** One external tool definition. */
export const HttpToolDefinition = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
  description: z.string().min(1),
  endpoint: z.string().min(1),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
  /** Name of the header carrying `authToken`. */
  authHeader: z.string().optional(),
  authToken: z.string().optional(),
  requiresAuth: z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]).default(false),
})
export type HttpToolDefinition = z.infer<typeof HttpToolDefinition>

/**
 * The definitions in `dynamicConfig` (a JSON text, an array, or one definition), and a problem
 * per entry that is not one (`tools.dynamicConfig[2].endpoint: …`), so the caller can warn.
 */
export function parseHttpTools(dynamicConfig: unknown): { tools: HttpToolDefinition[]; problems: string[] } {
  let value = dynamicConfig
  if (value === undefined || value === null || value === '') return { tools: [], problems: [] }
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      return { tools: [], problems: ['tools.dynamicConfig: not valid JSON'] }
    }
  }
  const entries = Array.isArray(value) ? value : [value]
  const tools: HttpToolDefinition[] = []
  const problems: string[] = []
  entries.forEach((entry, index) => {
    const parsed = HttpToolDefinition.safeParse(entry)
    if (parsed.success) tools.push(parsed.data)
    else for (const issue of parsed.error.issues) problems.push(`tools.dynamicConfig[${index}]${issue.path.map((part) => `.${String(part)}`).join('')}: ${issue.message}`)
  })
  return { tools, problems }
}

/** The tool of `definition`. */
export function httpTool(definition: HttpToolDefinition): Tool {
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
