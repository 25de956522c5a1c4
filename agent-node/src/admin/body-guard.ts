/**
 * Limits every admin request body has, whatever its route (the routes' zod schemas then check
 * each field):
 * - size: a body larger than `maxBytes` is refused while it streams in (hono `bodyLimit`, also
 *   for chunked bodies without `Content-Length`), 413 `payload_too_large`;
 * - JSON nesting: a JSON body nested deeper than `maxJsonDepth` (objects and arrays) is refused,
 *   400 `validation_error` naming the path where it gets too deep;
 * - NUL: a JSON string or key containing U+0000 is refused, 400 `validation_error` naming its
 *   path (NUL ends strings in C libraries, log pipelines and PostgreSQL `text`).
 * Answers use the admin error envelope (`errors.ts`).
 */
import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { errorResponse } from './errors.ts'

/** ADMIN_MAX_BODY_BYTES and ADMIN_MAX_JSON_DEPTH. */
export interface AdminBodyLimits {
  maxBodyBytes: number
  maxJsonDepth: number
}

/** Refuses bodies over `maxBodyBytes` with 413 before they are read whole. */
export function adminBodyLimit(limits: AdminBodyLimits): MiddlewareHandler {
  return bodyLimit({
    maxSize: limits.maxBodyBytes,
    onError: (c) => {
      c.header('connection', 'close')
      return errorResponse(c, 413, 'payload_too_large', `request body larger than ${limits.maxBodyBytes} bytes (ADMIN_MAX_BODY_BYTES)`)
    },
  })
}

/** Refuses JSON bodies nested deeper than `maxJsonDepth` or holding NUL characters, with 400 naming the path. */
export function adminJsonGuard(limits: AdminBodyLimits): MiddlewareHandler {
  return async (c, next) => {
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(c.req.header('content-type') ?? '')) return next()
    let body: unknown
    try {
      body = await c.req.json() // cached: the route's validator reads the same parse
    } catch {
      return next() // the route's validator answers malformed_json
    }
    const problem = findJsonProblem(body, limits.maxJsonDepth)
    if (!problem) return next()
    return errorResponse(c, 400, 'validation_error', `${problem.field}: ${problem.message}`, [problem])
  }
}

/**
 * The first place in `value` (parsed JSON) nested deeper than `maxDepth` or holding a NUL
 * character in a string or key, as `{ field, message }` with `field` the dotted path (`(body)` for
 * the root, long paths cut in the middle); undefined when there is none. Iterative: any depth.
 */
export function findJsonProblem(value: unknown, maxDepth: number): { field: string; message: string } | undefined {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }]
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!
    if (typeof node === 'string') {
      if (node.includes('\u0000')) return { field: fieldName(path), message: 'contains a NUL character' }
      continue
    }
    if (node === null || typeof node !== 'object') continue
    if (path.length >= maxDepth) return { field: fieldName(path), message: `nested deeper than ${maxDepth} levels` }
    const entries = Array.isArray(node) ? node.map((item, index) => [String(index), item] as const) : Object.entries(node)
    for (const [key, child] of entries.reverse()) {
      if (key.includes('\u0000')) return { field: fieldName([...path, key]), message: 'key contains a NUL character' }
      stack.push({ value: child, path: [...path, key] })
    }
  }
  return undefined
}

/** `path` joined with dots; past 12 segments only the first 6 and last 6 are kept. */
function fieldName(path: string[]): string {
  const clean = path.map((segment) => segment.replaceAll('\u0000', '\\u0000'))
  if (clean.length === 0) return '(body)'
  if (clean.length <= 12) return clean.join('.')
  return `${clean.slice(0, 6).join('.')}.….${clean.slice(-6).join('.')} (depth ${clean.length})`
}
