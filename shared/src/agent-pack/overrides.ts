/**
 * Step (c) of resolution: the variables of `variables.ts` replace values in the manifest tree. A
 * variable is applied when set to a non-empty string (its vendor aliases are read when it is
 * not), after being read in its format (CSV, JSON, ...); its value is then validated like the
 * field it replaces.
 */
import { envValue, type EnvRecord } from './env.ts'
import { formatPath, isMapping, type Mapping, type TreePath } from './tree.ts'
import type { EnvVariable, VariableFormat } from './variables.ts'

/** Where an overridden value came from, and what it replaced (restored when the override is bad). */
export interface OverrideOrigin {
  variable: string
  path: readonly string[]
  previous: unknown
}

/**
 * Reads `text` in `format`.
 * @returns the value, or an error saying what was expected.
 */
export function parseFormatted(text: string, format: VariableFormat): { value: unknown } | { error: string } {
  switch (format) {
    case 'text':
      return { value: text }
    case 'csv':
      return { value: splitCsv(text) }
    case 'list':
      return text.trim().startsWith('[') ? parseJson(text) : { value: splitCsv(text) }
    case 'json':
      return parseJson(text)
  }
}

function splitCsv(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
}

function parseJson(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch (error) {
    return { error: `expected JSON (${(error as Error).message})` }
  }
}

/**
 * Writes every set variable of `variables` into `tree` (in place). A section that is in the way
 * but not a mapping is replaced, with a warning; a value that cannot be read in its format is
 * skipped with a warning naming the variable.
 * @returns the origin of each overridden path, keyed by its formatted path.
 */
export function applyVariables(
  tree: Mapping,
  variables: readonly EnvVariable[],
  env: EnvRecord,
  warnings: string[],
): Map<string, OverrideOrigin> {
  const origins = new Map<string, OverrideOrigin>()
  for (const { variable, aliases = [], path, format } of variables) {
    const name = [variable, ...aliases].find((candidate) => envValue(env, candidate) !== undefined)
    if (name === undefined) continue
    const read = parseFormatted(envValue(env, name) as string, format)
    if ('error' in read) {
      warnings.push(`${name}: ${read.error}; ignored`)
      continue
    }
    const parent = mappingAt(tree, path.slice(0, -1), name, warnings)
    const field = path[path.length - 1] as string
    origins.set(formatPath(path), { variable: name, path, previous: parent[field] })
    parent[field] = read.value
  }
  return origins
}

function mappingAt(tree: Mapping, sections: readonly string[], variable: string, warnings: string[]): Mapping {
  let parent = tree
  for (const [depth, key] of sections.entries()) {
    const child = parent[key]
    if (!isMapping(child)) {
      if (child !== undefined)
        warnings.push(
          `${formatPath(sections.slice(0, depth + 1) as TreePath)}: expected a mapping, got ${JSON.stringify(child)}; replaced to apply ${variable}`,
        )
      parent[key] = {}
    }
    parent = parent[key] as Mapping
  }
  return parent
}
