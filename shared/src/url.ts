/**
 * URL fields of Parley's APIs: an absolute URL of given schemes, without `user:password@`
 * (credentials in a URL end up in logs, events and dead letters; send them in a header instead).
 */
import { z } from 'zod'

/** Whether `url` carries a user name or password (`https://user:pass@host/`). */
export function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url)
    return parsed.username !== '' || parsed.password !== ''
  } catch {
    return false
  }
}

/**
 * `url` with its user name and password, if any, replaced by `***`: the form safe for logs,
 * errors, events and dead letters. Not a URL at all: `(unparseable URL)`.
 */
export function redactedUrl(url: string | URL): string {
  try {
    const parsed = new URL(url)
    if (parsed.username) parsed.username = '***'
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(unparseable URL)'
  }
}

/**
 * A zod string schema for an absolute URL whose scheme matches `protocol` (e.g. `/^https?$/`),
 * refusing embedded credentials. Issues name the field (zod path), so an admin 400 says which.
 *
 * @param schemes what the error says is expected, e.g. `http(s)://`
 */
export function urlField(protocol: RegExp, schemes: string) {
  return z
    .url({ protocol, error: `must be an absolute ${schemes} URL` })
    .refine((url) => !hasCredentials(url), 'must not carry a user name or password (user:password@)')
}

/** An absolute http:// or https:// URL without credentials. */
export const HttpUrl = urlField(/^https?$/, 'http(s)://')
