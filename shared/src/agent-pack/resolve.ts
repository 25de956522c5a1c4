/**
 * Resolution of an agent pack into one configuration object, in the spec's order (rule 3):
 * (a) load the file, (b) substitute `${VAR}` placeholders, (c) apply environment overrides,
 * (d) fill built-in defaults. Vendor spellings become the neutral names on the way. Portable:
 * no Node or Workers APIs, so the Worker and Node tools resolve the same way.
 */
import type { z } from 'zod'
import { KEY_ALIASES } from './aliases.ts'
import { DEFAULT_API_KEY_ENV, DEFAULT_LOCAL_BASE_URL } from './defaults.ts'
import { NOT_ACTED_ON_AT_THE_EDGE } from './edge-support.ts'
import { envValue, type EnvRecord } from './env.ts'
import { maskSecrets } from './mask.ts'
import { applyVariables, parseFormatted, type OverrideOrigin } from './overrides.ts'
import { substitutePlaceholders } from './placeholders.ts'
import { AgentPackManifest, EnvironmentSettings, JSON_TEXT_FIELDS, type AgentPackConfig } from './schema/index.ts'
import { AGENT_PACK_FILE_NAMES, parseAgentPackSource, type AgentPackSource } from './source.ts'
import { formatPath, isMapping, removeAt, valueAt, type Mapping, type TreePath } from './tree.ts'
import { DUPLICATE_OF } from '../unique-by.ts'
import { ANTHROPIC_API_KEY, ENV_OVERRIDES, ENV_SETTINGS } from './variables.ts'

/** The outcome of resolution: the configuration and every problem met on the way. */
export interface ResolvedAgentPack {
  config: AgentPackConfig
  /** Human-readable, one per problem, each naming the path, e.g. `llm.temprature: unknown key`. */
  warnings: string[]
}

/** Options of `resolveAgentPack`. */
export interface ResolveOptions {
  /** Paths that get a "not acted on" warning when set; default `NOT_ACTED_ON_AT_THE_EDGE`. */
  notActedOn?: readonly string[]
}

/**
 * Resolves `source` (the manifest file's text, or `undefined` when there is none) against `env`.
 * Never throws: a missing or unparsable file, or one that is not a mapping, is a warning and
 * resolution continues from the environment and defaults (spec "Errors" 1); a bad value or an
 * unknown key is a warning naming its path, and that value is dropped (its default applies); a
 * bad override is a warning naming the variable, and the pack's value is kept.
 */
export function resolveAgentPack(
  source: AgentPackSource | undefined,
  env: EnvRecord,
  { notActedOn = NOT_ACTED_ON_AT_THE_EDGE }: ResolveOptions = {},
): ResolvedAgentPack {
  const warnings: string[] = []
  const substituted = substitutePlaceholders(readManifest(source, warnings), env, warnings)
  const manifest = isMapping(substituted) ? substituted : {}
  applyKeyAliases(manifest, warnings)
  for (const path of JSON_TEXT_FIELDS) parseJsonText(manifest, path, warnings)
  const origins = applyVariables(manifest, ENV_OVERRIDES, env, warnings)
  warnDeprecated(manifest, warnings)
  const parsed = validate(AgentPackManifest, manifest, origins, warnings)
  warnAdminOnlyApprovals(parsed, warnings)
  warnNotActedOn(manifest, notActedOn, warnings)
  return { config: withEnvironmentSettings(parsed, env, warnings), warnings }
}

/**
 * Warns of each approval policy without approver roles: its tools wait for an approval only an
 * admin may give (failing closed, where dropping the policy would let them run unapproved).
 */
function warnAdminOnlyApprovals(parsed: AgentPackManifest, warnings: string[]): void {
  for (const server of parsed.mcp.servers) {
    for (const [index, policy] of (server.toolAccess?.approval ?? []).entries()) {
      if (policy.approvers.length > 0) continue
      warnings.push(
        `mcp server '${server.name}': toolAccess.approval.${index}.approvers names no role; only admins may approve ${policy.tools.join(', ') || 'its tools'}`,
      )
    }
  }
}

/**
 * Adds what comes from the environment only: `llm.apiKey`, each media provider's `apiKey` (from
 * the variable its `apiKeyEnv` names), `objectStore`, and the `local` provider's default URL.
 */
function withEnvironmentSettings(parsed: AgentPackManifest, env: EnvRecord, warnings: string[]): AgentPackConfig {
  const tree: Mapping = {}
  const settings = validate(EnvironmentSettings, tree, applyVariables(tree, ENV_SETTINGS, env, warnings), warnings)
  const { llm, imageGeneration, speechToText, vision } = parsed
  const keyOf = (apiKeyEnv: string) => (apiKeyEnv === DEFAULT_API_KEY_ENV ? settings.llm.apiKey : envValue(env, apiKeyEnv))
  return {
    ...parsed,
    llm: {
      ...llm,
      baseUrl: llm.baseUrl ?? (llm.provider === 'local' ? DEFAULT_LOCAL_BASE_URL : undefined),
      apiKey: settings.llm.apiKey ?? (llm.provider === 'anthropic' ? envValue(env, ANTHROPIC_API_KEY) : undefined),
    },
    imageGeneration: { providers: imageGeneration.providers.map((provider) => ({ ...provider, apiKey: keyOf(provider.apiKeyEnv) })) },
    speechToText: {
      ...speechToText,
      provider: speechToText.provider && { ...speechToText.provider, apiKey: keyOf(speechToText.provider.apiKeyEnv) },
    },
    vision: { ...vision, provider: vision.provider && { ...vision.provider, apiKey: keyOf(vision.provider.apiKeyEnv) } },
    objectStore: settings.objectStore,
  }
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

/** Renames vendor keys (aliases.ts) to the neutral ones; the neutral key wins when both are set. */
function applyKeyAliases(manifest: Mapping, warnings: string[]): void {
  for (const { parent, from, to } of KEY_ALIASES) {
    const mapping = valueAt(manifest, parent)
    if (!isMapping(mapping) || !Object.hasOwn(mapping, from)) continue
    if (Object.hasOwn(mapping, to)) warnings.push(`${formatPath([...parent, from])}: alias of ${to}, which is also set; ignored`)
    else mapping[to] = mapping[from]
    delete mapping[from]
  }
}

/** A field that may be written as a JSON string holding its value is parsed in place. */
function parseJsonText(manifest: Mapping, path: readonly string[], warnings: string[]): void {
  const value = valueAt(manifest, path)
  if (typeof value !== 'string') return
  const parent = valueAt(manifest, path.slice(0, -1)) as Mapping
  const field = path[path.length - 1] as string
  const read = value.trim() === '' ? { value: undefined } : parseFormatted(value, 'json')
  if ('error' in read) warnings.push(`${formatPath(path)}: ${read.error}`)
  if ('error' in read || read.value === undefined) delete parent[field]
  else parent[field] = read.value
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

function warnNotActedOn(manifest: Mapping, paths: readonly string[], warnings: string[]): void {
  for (const path of paths) {
    if (valueAt(manifest, path.split('.')) !== undefined) warnings.push(`${path}: valid, but not acted on by the edge yet; ignored`)
  }
}

/** Bound on validation passes; each pass removes one bad value, so only a schema bug reaches it. */
const MAX_PASSES = 1000

/**
 * Parses `tree` with `schema` (mutating `tree`: bad values are removed, bad overrides undone)
 * until it passes, one warning per problem, so every bad field falls back to its default and the
 * good ones survive. Warnings give positions in lists as written, whatever was dropped before.
 */
function validate<S extends z.ZodType>(schema: S, tree: Mapping, origins: Map<string, OverrideOrigin>, warnings: string[]): z.output<S> {
  /** Warning (index) of each value removed so far, by path: a field that was bad, not absent. */
  const removed = new Map<string, number>()
  const positions = new WrittenPositions()
  /** Removes the value at `path`, remembering the position when it is a list entry. */
  const remove = (path: TreePath): boolean => {
    const list = path.slice(0, -1)
    const index = path.at(-1)
    const entry = typeof index === 'number' && Array.isArray(valueAt(tree, list))
    if (!removeAt(tree, path)) return false
    if (entry) positions.removed(list, index)
    return true
  }
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const result = schema.safeParse(tree)
    if (result.success) return result.data
    const issue = result.error.issues[0]
    if (issue === undefined) break
    const path = formatPath(issue.path)
    const shown = positions.format(issue.path)
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        warnings.push(`${positions.format([...issue.path, key])}: unknown key`)
        removeAt(tree, [...issue.path, key])
      }
      continue
    }
    const message = messageOf(issue, positions)
    const origin = originOf(issue.path, origins)
    if (origin && formatPath(origin.path) === path) {
      // A bad override: undo it, keeping what the pack said (validated on the next pass).
      warnings.push(`${shown}: ${message}, got ${describe(valueAt(tree, issue.path), issue.path)} (from ${origin.variable}; ignored)`)
      origins.delete(path)
      const parent = valueAt(tree, origin.path.slice(0, -1)) as Mapping
      const field = origin.path[origin.path.length - 1] as string
      if (origin.previous === undefined) delete parent[field]
      else parent[field] = origin.previous
      positions.replaced(origin.path)
      continue
    }
    const from = origin ? ` (from ${origin.variable})` : ''
    const value = valueAt(tree, issue.path)
    if (value !== undefined) {
      removed.set(path, warnings.push(`${shown}: ${message}, got ${describe(value, issue.path)}${from}`) - 1)
      if (!remove(issue.path)) break
      continue
    }
    // A required value is missing (or was just removed as bad): drop what holds it.
    const holder = deepestPresent(tree, issue.path)
    const holderShown = positions.format(holder)
    if (holder.length === 0 || !remove(holder)) break
    const earlier = removed.get(path)
    if (earlier === undefined) warnings.push(`${shown}: ${message}, got nothing${from}; ${holderShown} dropped`)
    else warnings[earlier] += `; ${holderShown} dropped`
    removed.clear() // positions under the holder have moved
  }
  warnings.push('(manifest): could not be validated; using built-in defaults only')
  return schema.parse({})
}

/**
 * Positions in lists as written in the manifest, while `validate` drops list entries: an issue's
 * path gives positions in the tree as it is now, a warning those the pack author wrote.
 */
class WrittenPositions {
  /** The entries dropped so far, in order: the list's path and the entry's position at that time. */
  private readonly drops: { list: TreePath; index: number }[] = []

  /** The entry at `index` of the list at `list` was removed. */
  removed(list: TreePath, index: number): void {
    this.drops.push({ list, index })
  }

  /** The value at `path` was replaced (an override undone): what was dropped under it no longer counts. */
  replaced(path: TreePath): void {
    for (let i = this.drops.length - 1; i >= 0; i--) {
      if (startsWith(this.drops[i]!.list, path)) this.drops.splice(i, 1)
    }
  }

  /** `path` (positions now) with the positions as written: each drop undone, latest first. */
  written(path: TreePath): TreePath {
    const result = [...path]
    for (let i = this.drops.length - 1; i >= 0; i--) {
      const { list, index } = this.drops[i]!
      const position = result[list.length]
      if (typeof position === 'number' && position >= index && startsWith(result, list)) result[list.length] = position + 1
    }
    return result
  }

  /** `written(path)` as shown in a warning. */
  format(path: TreePath): string {
    return formatPath(this.written(path))
  }
}

function startsWith(path: TreePath, prefix: TreePath): boolean {
  return path.length >= prefix.length && prefix.every((key, i) => path[i] === key)
}

/**
 * The issue's message; for a repeated key (`uniqueListOf`), `duplicate of <list>.<position>`,
 * naming the entry that holds it first by its position as written.
 */
function messageOf(issue: z.core.$ZodIssue, positions: WrittenPositions): string {
  const earlier = issue.code === 'custom' ? issue.params?.[DUPLICATE_OF] : undefined
  if (typeof earlier !== 'number') return issue.message
  const list = issue.path.slice(0, -2)
  return `duplicate of ${formatPath(positions.written([...list, earlier]).slice(-2))}`
}

function originOf(path: TreePath, origins: Map<string, OverrideOrigin>): OverrideOrigin | undefined {
  for (let length = path.length; length > 0; length--) {
    const origin = origins.get(formatPath(path.slice(0, length)))
    if (origin) return origin
  }
  return undefined
}

function deepestPresent(tree: Mapping, path: TreePath): TreePath {
  for (let length = path.length - 1; length > 0; length--) {
    if (valueAt(tree, path.slice(0, length)) !== undefined) return path.slice(0, length)
  }
  return []
}

const MAX_SHOWN = 80

/** `value` as shown in a warning: secrets masked (by the key holding it), long values cut. */
function describe(value: unknown, path: TreePath): string {
  const key = path.at(-1)
  const text = JSON.stringify(maskSecrets(value, typeof key === 'string' ? key : undefined)) ?? String(value)
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text
}
