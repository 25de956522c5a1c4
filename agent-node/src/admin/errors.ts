/**
 * The admin API's error envelope. Every 4xx/5xx answer is JSON:
 *
 * ```json
 * { "error": "validation_error", "message": "content: Too small: expected string to have >=1 characters",
 *   "issues": [{ "field": "content", "message": "Too small: expected string to have >=1 characters" }] }
 * ```
 *
 * `error` is a stable code (validation_error, malformed_json, not_found, conflict, internal_error),
 * `message` is for people, `issues` (validation only) names each offending field by its path.
 * Services throw typed domain errors (`../errors/`); `errorHandler` maps them here, once.
 */
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { z } from 'zod'
import { DomainError, type DomainErrorKind } from '../errors/index.ts'
import { ErrorBody } from '../http/errors.ts'
import type { Logger } from '../logging/index.ts'

export { ErrorBody } from '../http/errors.ts'

/** Answers with the error envelope. */
export function errorResponse<S extends ContentfulStatusCode>(
  c: Context,
  status: S,
  error: string,
  message: string,
  issues?: ErrorBody['issues'],
) {
  const body: ErrorBody = { error, message, ...(issues ? { issues } : {}) }
  return c.json(body, status)
}

const fieldName = (path: readonly PropertyKey[]) => (path.length > 0 ? path.join('.') : '(body)')

/**
 * The fields one zod issue names: its path, or, for unknown keys (strict objects), one entry
 * per key at `<path>.<key>`, so a stray nested field is named exactly.
 */
function issueFields(issue: z.core.$ZodIssue): NonNullable<ErrorBody['issues']> {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ field: fieldName([...issue.path, key]), message: 'unknown field' }))
  }
  return [{ field: fieldName(issue.path), message: issue.message }]
}

/** `defaultHook` of the OpenAPI app: a failed zod validation becomes a 400 naming the fields. */
export function validationHook(result: { success: boolean; error?: z.ZodError; target?: string }, c: Context) {
  if (result.success || !result.error) return
  const issues = result.error.issues.flatMap(issueFields)
  return errorResponse(c, 400, 'validation_error', issues.map((i) => `${i.field}: ${i.message}`).join('; '), issues)
}

/** The status each kind of domain error answers. */
export const DOMAIN_ERROR_STATUS = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  gone: 410,
  unprocessable: 422,
} as const satisfies Record<DomainErrorKind, ContentfulStatusCode>

/**
 * `onError` of the app, the one place errors become answers: a domain error (`../errors/`) gets
 * its kind's status and its code, message and issues; HTTP exceptions keep their status;
 * anything else is a 500 logged with the request's logger (so with its request id), or `logger`
 * when the request has none.
 */
export function errorHandler(logger: Logger) {
  return (error: Error, c: Context) => {
    if (error instanceof DomainError) return errorResponse(c, DOMAIN_ERROR_STATUS[error.kind], error.code, error.message, error.issues)
    if (error instanceof HTTPException) {
      const malformed = error.status === 400 && /JSON/i.test(error.message)
      return errorResponse(
        c,
        error.status,
        malformed ? 'malformed_json' : 'http_error',
        malformed ? 'request body is not valid JSON' : error.message,
      )
    }
    const requestLogger: Logger = c.get('logger') ?? logger
    requestLogger.error({ err: error, method: c.req.method, path: c.req.path }, 'admin request failed')
    return errorResponse(c, 500, 'internal_error', 'internal error')
  }
}
