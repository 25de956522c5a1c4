/**
 * Step (b) of resolution (spec rule 2): `${VAR_NAME}` in any string value is replaced by that
 * environment variable when it is set.
 */
import { envValue, type EnvRecord } from './env.ts'
import { formatPath, isMapping, type TreePath } from './tree.ts'

/** A `${NAME}` placeholder; the name is the first group. */
export const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g
const WHOLE_PLACEHOLDER = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/

/**
 * Returns a copy of `value` with placeholders substituted from `env`. An unset variable leaves
 * its placeholder in the text and adds a warning; a value that is nothing but an unset
 * placeholder is dropped instead, so the field's default applies.
 */
export function substitutePlaceholders(value: unknown, env: EnvRecord, warnings: string[], path: TreePath = []): unknown {
  if (typeof value === 'string') {
    let unset = false
    const text = value.replace(PLACEHOLDER, (placeholder, name: string) => {
      const replacement = envValue(env, name)
      if (replacement !== undefined) return replacement
      warnings.push(`${formatPath(path)}: environment variable ${name} is not set`)
      unset = true
      return placeholder
    })
    return unset && WHOLE_PLACEHOLDER.test(value) ? undefined : text
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => substitutePlaceholders(item, env, warnings, [...path, index])).filter((item) => item !== undefined)
  }
  if (isMapping(value)) {
    const entries = Object.entries(value).map(([key, item]) => [key, substitutePlaceholders(item, env, warnings, [...path, key])])
    return Object.fromEntries(entries.filter(([, item]) => item !== undefined))
  }
  return value
}
