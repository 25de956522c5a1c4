/**
 * Typed domain errors: what services throw when a request cannot be served, with no knowledge of
 * HTTP. Each carries a `kind` (the admin API maps each kind to one status, once, in its `onError`:
 * `admin/errors.ts`), a stable `code` (the `error` of the admin error envelope) and, for input
 * problems, `issues` naming each offending field by its path.
 */
import { UnsafeUrlError } from '@parley/shared/net'

/** One input problem: the dotted path of the field and what is wrong with it. */
export interface FieldIssue {
  field: string
  message: string
}

/**
 * The kinds of failure: `invalid` input (HTTP 400), `not_found` (404), `conflict` with the
 * current state (409), `gone`: the target exists but takes no more requests (410),
 * `unprocessable`: a well-formed request the agent will not take (422).
 */
export type DomainErrorKind = 'invalid' | 'not_found' | 'conflict' | 'gone' | 'unprocessable'

/** Base of every domain error: `kind`, stable `code`, a message for people, optional field `issues`. */
export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    readonly issues?: FieldIssue[],
  ) {
    super(message)
    this.name = new.target.name
  }
}

/** Input that cannot be used; `issues` names the fields (code `validation_error` unless given). */
export class InvalidInputError extends DomainError {
  constructor(message: string, issues?: FieldIssue[], code = 'validation_error') {
    super('invalid', code, message, issues)
  }
}

/** One field that cannot be used: message `<field>: <reason>`, one issue naming it. */
export class InvalidFieldError extends InvalidInputError {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`, [{ field, message: reason }])
  }
}

/** The thing a request names does not exist (code `not_found`). */
export class NotFoundError extends DomainError {
  constructor(message: string, issues?: FieldIssue[]) {
    super('not_found', 'not_found', message, issues)
  }
}

/** The request conflicts with the current state (code `conflict` unless given). */
export class ConflictError extends DomainError {
  constructor(message: string, options: { code?: string; issues?: FieldIssue[] } = {}) {
    super('conflict', options.code ?? 'conflict', message, options.issues)
  }
}

/** `value`, or a NotFoundError with `message` when it is null or undefined. */
export function found<T>(value: T | null | undefined, message: string): T {
  if (value === null || value === undefined) throw new NotFoundError(message)
  return value
}

/**
 * A `.catch` handler turning an UnsafeUrlError (the outbound guard refused a URL) into an
 * InvalidFieldError naming `field`, the request field the URL came from; other errors pass on.
 */
export function unsafeUrlAsField(field: string): (error: unknown) => never {
  return (error) => {
    throw error instanceof UnsafeUrlError ? new InvalidFieldError(field, error.reason) : error
  }
}
