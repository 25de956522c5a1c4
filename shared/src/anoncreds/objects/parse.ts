import type { z } from 'zod'
import { inputError } from '../lib/errors.ts'

/**
 * Parses `json` (a string) with the zod `schema` of an AnonCreds object. Bad JSON or a value that
 * does not fit throws `AnoncredsError` (code 1, Input) naming the object and the first failing
 * field path, e.g. `Invalid Credential: values.age.encoded: expected string`.
 */
export function parseObjectJson<S extends z.ZodType>(schema: S, json: string, objectName: string): z.output<S> {
  let raw: unknown
  try {
    raw = JSON.parse(json)
  } catch (error) {
    inputError(`Invalid ${objectName} JSON: ${(error as Error).message}`)
  }
  return parseObjectValue(schema, raw, objectName)
}

/** Like `parseObjectJson` for a value already decoded from JSON (or msgpack). */
export function parseObjectValue<S extends z.ZodType>(schema: S, raw: unknown, objectName: string): z.output<S> {
  const result = schema.safeParse(raw)
  if (!result.success) {
    const issue = result.error.issues[0]
    const path = issue?.path.length ? issue.path.map(String).join('.') : '(root)'
    inputError(`Invalid ${objectName}: ${path}: ${issue?.message ?? 'invalid value'}`)
  }
  return result.data
}

/** Sorts an object's keys (what serde does for `BTreeMap` fields); returns a new object. */
export function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {}
  for (const key of Object.keys(record).sort()) out[key] = record[key] as T
  return out
}

/**
 * Deep-sorts object keys, the order serde_json gives when a value goes through `serde_json::Value`
 * without `preserve_order` (anoncreds-rs serialises presentation requests that way).
 */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep((value as Record<string, unknown>)[key])
    return out
  }
  return value
}
