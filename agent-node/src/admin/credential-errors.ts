/**
 * The admin API's answers to the credential features' domain errors: an unknown credential
 * definition is a 404; claims or attributes that do not match the type, and a callback URL the
 * agent may not call, are 400 `validation_error`s naming the field.
 */
import type { Context } from 'hono'
import { ClaimsMismatchError, UnknownCredentialDefinitionError } from '../credentials/CredentialTypes.ts'
import { UnsafeUrlError } from '../http/outbound-guard.ts'
import { errorResponse } from './errors.ts'

/** The error response for `error`, or undefined when it is not one of these (the caller rethrows). */
export function credentialErrorResponse(c: Context, error: unknown, urlField = 'callbackUrl') {
  if (error instanceof UnknownCredentialDefinitionError) {
    return errorResponse(c, 404, 'not_found', error.message, [{ field: 'credentialDefinitionId', message: error.message }])
  }
  if (error instanceof ClaimsMismatchError) return errorResponse(c, 400, 'validation_error', error.message, error.issues)
  if (error instanceof UnsafeUrlError) {
    const message = `${urlField}: ${error.reason}`
    return errorResponse(c, 400, 'validation_error', message, [{ field: urlField, message: error.reason }])
  }
  return undefined
}
