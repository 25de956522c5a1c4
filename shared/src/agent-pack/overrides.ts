/**
 * Step (c) of resolution: the environment variables the spec's tables name in their
 * "Env override" column replace the manifest's values. A variable is applied when set to a
 * non-empty string; its value is validated like the field it replaces.
 */
import { envValue, type EnvRecord } from './env.ts'
import { formatPath, isMapping, type Mapping, type TreePath } from './tree.ts'

/** One row of an "Env override" column: `variable` replaces the value at `path`. */
export interface EnvOverride {
  variable: string
  path: readonly string[]
}

/** The overrides of the sections typed so far (llm, memory). */
export const ENV_OVERRIDES: readonly EnvOverride[] = [
  { variable: 'LLM_PROVIDER', path: ['llm', 'provider'] },
  { variable: 'COMPAT_MODEL', path: ['llm', 'model'] },
  { variable: 'COMPAT_TEMPERATURE', path: ['llm', 'temperature'] },
  { variable: 'COMPAT_MAX_TOKENS', path: ['llm', 'maxTokens'] },
  { variable: 'COMPAT_BASE_URL', path: ['llm', 'baseUrl'] },
  { variable: 'AGENT_PROMPT', path: ['llm', 'agentPrompt'] },
  { variable: 'AGENT_MEMORY_BACKEND', path: ['memory', 'backend'] },
  { variable: 'AGENT_MEMORY_WINDOW', path: ['memory', 'window'] },
  { variable: 'REDIS_URL', path: ['memory', 'redisUrl'] },
]

/**
 * Writes every set override into `manifest` (in place). A section that is in the way but not a
 * mapping is replaced, with a warning.
 * @returns the variable each overridden path came from, keyed by its formatted path.
 */
export function applyEnvOverrides(manifest: Mapping, env: EnvRecord, warnings: string[]): Map<string, string> {
  const origins = new Map<string, string>()
  for (const { variable, path } of ENV_OVERRIDES) {
    const value = envValue(env, variable)
    if (value === undefined) continue
    const sections = path.slice(0, -1)
    const field = path[path.length - 1]
    if (field === undefined) continue
    let parent = manifest
    for (const [depth, key] of sections.entries()) {
      const child = parent[key]
      if (!isMapping(child)) {
        if (child !== undefined) warnings.push(`${formatPath(path.slice(0, depth + 1) as TreePath)}: expected a mapping, got ${JSON.stringify(child)}; replaced to apply ${variable}`)
        parent[key] = {}
      }
      parent = parent[key] as Mapping
    }
    parent[field] = value
    origins.set(formatPath(path), variable)
  }
  return origins
}
