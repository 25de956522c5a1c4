/**
 * Which environment variables a pack needs handed to the process that resolves it (`npm start`
 * passes exactly these to the worker): every variable of the override and settings table, every
 * `${VAR}` the file refers to, and every variable an `apiKeyEnv` field names.
 */
import { ENV_NAME, envValue, type EnvRecord } from './env.ts'
import { PLACEHOLDER } from './placeholders.ts'
import { parseAgentPackSource, type AgentPackSource } from './source.ts'
import { isMapping } from './tree.ts'
import { knownVariableNames } from './variables.ts'

/** The variable names `source` (or, without one, the table alone) may read, sorted, no repeats. */
export function referencedVariables(source?: AgentPackSource): string[] {
  const names = new Set(knownVariableNames())
  if (source !== undefined) {
    for (const match of source.text.matchAll(PLACEHOLDER)) names.add(match[1] as string)
    const parsed = parseAgentPackSource(source)
    if ('value' in parsed) collectApiKeyEnv(parsed.value, names)
  }
  return [...names].sort()
}

function collectApiKeyEnv(value: unknown, names: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) collectApiKeyEnv(item, names)
  if (!isMapping(value)) return
  for (const [key, item] of Object.entries(value)) {
    if (key === 'apiKeyEnv' && typeof item === 'string' && ENV_NAME.test(item)) names.add(item)
    else collectApiKeyEnv(item, names)
  }
}

/**
 * The variables among `names` that are set (to a non-empty string) in `env`: what a launcher
 * hands the process that resolves the pack (`npm start` → the worker's vars).
 */
export function pickEnv(env: EnvRecord, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => {
      const value = envValue(env, name)
      return value === undefined ? [] : [[name, value]]
    }),
  )
}
