/** Masking secrets before a value is logged (`llm.verbose` exchanges, tool calls). */

/** Field names whose values are secrets, whatever their case or position in the name. */
const SECRET_NAME = /(api[-_]?key|token|secret|password|authorization|auth[-_]?header|cookie)/i

/** A copy of `value` where every field whose name looks like a secret reads `***`. */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, SECRET_NAME.test(key) ? '***' : maskSecrets(field)]))
  }
  return value
}
