/**
 * Schemas of the manifest's value types (spec "Resources and their fields"). Each carries one
 * human message, `expected ...`, used for every way a value can be wrong; the resolver appends
 * what it got. `number/string` and `boolean/string` accept a value or a string that resolves to one.
 */
import { z } from 'zod'

/** A string. */
export function textValue() {
  return z.string({ error: 'expected a string' })
}

/** A list of strings. */
export function textListValue() {
  return z.array(textValue(), { error: 'expected a list of strings' })
}

/** A map of string to string. */
export function textMapValue() {
  return z.record(z.string(), textValue(), { error: 'expected a mapping of strings' })
}

/** One of `options`. */
export function choiceValue<const T extends readonly [string, ...string[]]>(options: T) {
  return z.enum(options, { error: `expected one of ${options.join(', ')}` })
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
  return z.preprocess((value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value), schema)
}

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1'])
const FALSE_WORDS = new Set(['false', 'no', 'off', '0'])

/** `boolean/string`: a boolean, or one of true/false, yes/no, on/off, 1/0 (any case). */
export function booleanValue() {
  return z.preprocess((value) => {
    if (typeof value !== 'string') return value
    const word = value.trim().toLowerCase()
    return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : value
  }, z.boolean({ error: 'expected true or false' }))
}

/** A mapping whose fields are validated by `shape`. */
export function section<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.object(shape, { error: 'expected a mapping' })
}
