/**
 * Resolution of an agent pack into one configuration object, in the spec's order: (a) load the
 * file, (b) substitute `${VAR}` placeholders, (c) apply environment overrides, (d) fill built-in
 * defaults. Portable: no Node or Workers APIs, so agent-node and the Worker resolve the same way.
 */
import { envValue, type EnvRecord } from './env.ts'
import { applyEnvOverrides } from './overrides.ts'
import { substitutePlaceholders } from './placeholders.ts'
import { AgentPackManifest, type AgentPackConfig } from './schema.ts'
import { AGENT_PACK_FILE_NAMES, parseAgentPackSource, type AgentPackSource } from './source.ts'
import { formatPath, isMapping, removeAt, valueAt, type Mapping } from './tree.ts'

/** The outcome of resolution: the configuration and every problem met on the way. */
export interface ResolvedAgentPack {
  config: AgentPackConfig
  /** Human-readable, one per problem, each naming the path, e.g. `llm.temperature: expected ...`. */
  warnings: string[]
}

/**
 * Resolves `source` (the manifest file's text, or `undefined` when there is none) against `env`.
 * Never throws: a missing or unparsable file, or one that is not a mapping, is a warning and
 * resolution continues from the environment and defaults (spec "Errors" 1); a bad value is a
 * warning and that field falls back to its default.
 */
export function resolveAgentPack(source: AgentPackSource | undefined, env: EnvRecord): ResolvedAgentPack {
  const warnings: string[] = []
  const loaded = readManifest(source, warnings)
  const substituted = substitutePlaceholders(loaded, env, warnings)
  const manifest = isMapping(substituted) ? substituted : {}
  const origins = applyEnvOverrides(manifest, env, warnings)
  warnDeprecated(manifest, warnings)
  const parsed = validate(manifest, origins, warnings)
  return { config: { ...parsed, llm: { ...parsed.llm, apiKey: envValue(env, 'COMPAT_API_KEY') } }, warnings }
}

function readManifest(source: AgentPackSource | undefined, warnings: string[]): Mapping {
  if (source === undefined) {
    warnings.push(`no agent pack found (${AGENT_PACK_FILE_NAMES.join(', ')}); using environment variables and defaults`)
    return {}
  }
  const parsed = parseAgentPackSource(source)
  if ('error' in parsed) {
    warnings.push(`${parsed.error}; using environment variables and defaults`)
    return {}
  }
  if (parsed.value === null || parsed.value === undefined) return {}
  if (!isMapping(parsed.value)) {
    warnings.push(`${source.path}: expected a mapping at the top level; using environment variables and defaults`)
    return {}
  }
  return parsed.value
}

function warnDeprecated(manifest: Mapping, warnings: string[]): void {
  const languages = manifest.languages
  if (!isMapping(languages)) return
  for (const [code, entry] of Object.entries(languages)) {
    if (isMapping(entry) && entry.welcomeMessage !== undefined) {
      warnings.push(`languages.${code}.welcomeMessage: deprecated, use greetingMessage`)
    }
  }
}

/** Bound on validation passes; each pass removes one bad value, so only a schema bug reaches it. */
const MAX_PASSES = 1000

/**
 * Parses `manifest` (mutated: bad values are removed) until it passes, one warning per removed
 * value, so every bad field falls back to its default and the good ones survive.
 */
function validate(manifest: Mapping, origins: Map<string, string>, warnings: string[]) {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const result = AgentPackManifest.safeParse(manifest)
    if (result.success) return result.data
    const issue = result.error.issues[0]
    if (issue === undefined) break
    const path = formatPath(issue.path)
    const origin = origins.get(path)
    warnings.push(`${path}: ${issue.message}, got ${describe(valueAt(manifest, issue.path))}${origin ? ` (from ${origin})` : ''}`)
    if (!removeAt(manifest, issue.path)) break
  }
  warnings.push('(manifest): could not be validated; using built-in defaults only')
  return AgentPackManifest.parse({})
}

const MAX_SHOWN = 80

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text
}
