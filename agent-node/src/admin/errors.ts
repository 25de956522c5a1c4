/** The admin API's error answers: the shared error body (`http/errors.ts`) and the hooks that produce it. */
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { z } from 'zod'
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

/** `onError` of the app: HTTP exceptions keep their status, anything else is a logged 500. */
export function errorHandler(logger: Logger) {
  return (error: Error, c: Context) => {
    if (error instanceof HTTPException) {
      const malformed = error.status === 400 && /JSON/i.test(error.message)
      return errorResponse(
        c,
        error.status,
        malformed ? 'malformed_json' : 'http_error',
        malformed ? 'request body is not valid JSON' : error.message,
      )
    }
    logger.error({ err: error, path: c.req.path }, 'admin request failed')
    return errorResponse(c, 500, 'internal_error', 'internal error')
  }
}
