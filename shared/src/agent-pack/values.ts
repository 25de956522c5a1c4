/**
 * Schemas of the manifest's value types (spec "Resources and their fields"). Each carries one
 * human message, `expected ...`, used for every way a value can be wrong; the resolver appends
 * what it got. `number/string` and `boolean/string` accept a value or a string that resolves to
 * one. Input and output differ (a string in, a number out), so the JSON Schema generated for
 * editors describes what may be written and the TypeScript output type what readers get.
 */
import { z } from 'zod'
import { uniqueBy } from '../unique-by.ts'

/** A string. */
export function textValue() {
  return z.string({ error: 'expected a string' })
}

/**
 * A non-empty string: an id or name other values refer to, or a text shown to users (a menu
 * label). A refinement rather than `.min(1)`, so the editors' JSON Schema stays as it is.
 */
export function nonEmptyTextValue() {
  return textValue().refine((value) => value !== '', { error: 'expected a non-empty string' })
}

/** A list of strings. */
export function textListValue() {
  return z.array(textValue(), { error: 'expected a list of strings' })
}

/** A map of string to string. */
export function textMapValue() {
  return z.record(z.string(), textValue(), { error: 'expected a mapping of strings' })
}

/** An absolute http(s) URL. */
export function urlValue() {
  return z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
}

/** An http(s) URL, or the empty string, which stands for "not set" (the output is `undefined`). */
export function optionalUrlValue() {
  return z.union([z.literal(''), urlValue()], { error: 'expected an http(s) URL' }).transform((value) => value || undefined)
}

/**
 * One of `options`, or a vendor spelling in `aliases` that stands for one of them (aliases.ts);
 * the output is always the neutral name.
 */
export function choiceValue<const T extends readonly [string, ...string[]]>(options: T, aliases: Readonly<Record<string, T[number]>> = {}) {
  const error = `expected one of ${options.join(', ')}`
  const spellings = [...options, ...Object.keys(aliases)] as unknown as readonly [string, ...string[]]
  return z
    .enum(spellings, { error })
    .transform((value) => aliases[value] ?? value)
    .pipe(z.enum(options, { error }))
}

/**
 * `number/string`: a number, or a string holding one, within `min`..`max`; `integer` also
 * rejects fractions.
 */
export function numberValue({ min, max, integer = false }: { min: number; max?: number; integer?: boolean }) {
  const kind = integer ? 'a whole number' : 'a number'
  const error = max === undefined ? `expected ${kind} of at least ${min}` : `expected ${kind} from ${min} to ${max}`
  let schema = z.number({ error }).min(min, { error })
  if (max !== undefined) schema = schema.max(max, { error })
  if (integer) schema = schema.int({ error })
  return z
    .union([z.number(), z.string()], { error })
    .transform((value) => (typeof value === 'number' ? value : value.trim() === '' ? Number.NaN : Number(value)))
    .pipe(schema)
}

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1'])
const FALSE_WORDS = new Set(['false', 'no', 'off', '0'])
const BOOLEAN_ERROR = 'expected true or false'

/** `boolean/string`: a boolean, or one of true/false, yes/no, on/off, 1/0 (any case). */
export function booleanValue() {
  return z
    .union([z.boolean(), z.string()], { error: BOOLEAN_ERROR })
    .transform((value) => {
      if (typeof value === 'boolean') return value
      const word = value.trim().toLowerCase()
      return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : value
    })
    .pipe(z.boolean({ error: BOOLEAN_ERROR }))
}

/** A mapping whose fields are validated by `shape`; any other key is reported as unknown. */
export function section<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.strictObject(shape, { error: 'expected a mapping' })
}

/** A list of `item`. */
export function listOf<T extends z.ZodType>(item: T, what: string) {
  return z.array(item, { error: `expected a list of ${what}` })
}

/**
 * A list of `item` in which `key` (a non-empty string field of each entry: an id, a name) is
 * unique. Each entry that repeats an earlier entry's key is an issue at `<index>.<key>` whose
 * params give the earlier position (`DUPLICATE_OF`): the resolver drops that later entry with a
 * warning such as `flows.menu.items.2.id: duplicate of items.0`. Checked once every entry is valid.
 */
export function uniqueListOf<T extends z.ZodType, K extends keyof z.output<T> & string>(item: T, what: string, key: K) {
  return listOf(item, what).superRefine(uniqueBy(key, `${what} are told apart by ${key}`))
}

/** A mapping of string keys to `item`. */
export function mapOf<T extends z.ZodType>(item: T, what: string) {
  return z.record(z.string(), item, { error: `expected a mapping of ${what}` })
}
