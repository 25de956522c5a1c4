/**
 * Masking the secrets of a resolved configuration before it is shown or logged (`npm run pack --
 * check`, verbose model logging): API keys, passwords and tokens by key name, every header value,
 * every environment value of a stdio MCP server, and the password of URLs that carry one.
 */

/** What a masked value is replaced by. */
export const MASK = '***'

/** Keys whose string value is a secret wherever they appear. */
const SECRET_KEY = /^(api[-_]?key|password|pass|secret|secret[-_]?key|access[-_]?key|auth[-_]?token|token|client[-_]?secret)$/i
/** Mappings all of whose values are secrets: request headers, a process's environment. */
const SECRET_MAPPING = new Set(['headers', 'env'])

/**
 * A deep copy of `value` with secrets replaced by `MASK` (whatever their type, under a secret
 * key). Empty strings stay empty, so "not set" remains visible. `key` is the key holding `value`.
 */
export function maskSecrets(value: unknown, key?: string): unknown {
  if (value === '' || value === null || value === undefined) return value
  if (key !== undefined && SECRET_KEY.test(key)) return MASK
  if (typeof value === 'string') return maskUrlPassword(value)
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item))
  if (typeof value === 'object' && value !== null) {
    const secretMapping = key !== undefined && SECRET_MAPPING.has(key)
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [
        name,
        secretMapping && typeof item === 'string' && item !== '' ? MASK : maskSecrets(item, name),
      ]),
    )
  }
  return value
}

/** `redis://user:pw@host` → `redis://user:***@host`; other text unchanged. */
function maskUrlPassword(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/\s]*:[^/\s]*@/i.test(text)) return text
  try {
    const url = new URL(text)
    if (url.password === '') return text
    url.password = MASK
    return url.toString()
  } catch {
    return text
  }
}
