import type { AnoncredsError } from '@hyperledger/anoncreds-shared'
import { isAnoncredsError, newAnoncredsError } from './runtime-classes.ts'

/**
 * anoncreds-rs FFI error codes (`src/ffi/error.rs`, `ErrorCode`). The JavaScript wrapper throws
 * `AnoncredsError { code, message }` with these codes; `100` is the wrapper's own custom error.
 */
export const ErrorCode = {
  Success: 0,
  Input: 1,
  IOError: 2,
  InvalidState: 3,
  Unexpected: 4,
  CredentialRevoked: 5,
  InvalidUserRevocId: 6,
  ProofRejected: 7,
  RevocationRegistryFull: 8,
  Custom: 100,
} as const

/** One of the numeric codes of `ErrorCode`. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode]

/** Creates the `AnoncredsError` the native wrapper would throw. */
export function anoncredsError(code: ErrorCodeValue, message: string): AnoncredsError {
  return newAnoncredsError({ code, message })
}

/** Throws an input error (code 1), the kind anoncreds-rs raises for bad arguments and bad JSON. */
export function inputError(message: string): never {
  throw anoncredsError(ErrorCode.Input, message)
}

/** Message used by every revocation entry point until revocation is implemented. */
export const REVOCATION_NOT_SUPPORTED = 'revocation not supported yet'

/** Throws `AnoncredsError` (code `Unexpected`) saying revocation is not supported yet. */
export function revocationNotSupported(): never {
  throw anoncredsError(ErrorCode.Unexpected, REVOCATION_NOT_SUPPORTED)
}

/**
 * Converts anything thrown inside the engine into an `AnoncredsError` (kept as is when it already
 * is one; other errors become `Unexpected` with their message), so callers only ever see the
 * wrapper's error type.
 */
export function toAnoncredsError(error: unknown): AnoncredsError {
  if (isAnoncredsError(error)) return error
  if (error instanceof Error) return anoncredsError(ErrorCode.Unexpected, error.message)
  return anoncredsError(ErrorCode.Unexpected, String(error))
}
