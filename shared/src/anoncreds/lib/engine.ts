import type { Anoncreds, AnoncredsError } from '@hyperledger/anoncreds-shared'
import { IssuanceError } from '../issuance/index.ts'
import { PresentationInputError, PresentationRejectedError } from '../presentation/restrictions.ts'
import { engineContext } from './context.ts'
import { ErrorCode, anoncredsError, toAnoncredsError } from './errors.ts'
import { HandleTable } from './handles.ts'
import { issuanceOps } from './ops-issuance.ts'
import { objectOps } from './ops-objects.ts'
import { presentationOps } from './ops-presentation.ts'
import { PreparedCredentialKeys } from './prepared-keys.ts'
import { revocationOps } from './ops-revocation.ts'
import { w3cOps } from './ops-w3c.ts'
import { isAnoncredsError } from './runtime-classes.ts'

export { createLinkSecret, generateNonce } from './random-values.ts'

/** Engine name and version returned by `version()`. */
export const ENGINE_VERSION = 'parley-anoncreds-ts/0.1.0'

/** Maps errors of the other engine folders to the `AnoncredsError` codes anoncreds-rs would use. */
function engineError(error: unknown): AnoncredsError {
  if (isAnoncredsError(error)) return error
  if (error instanceof PresentationRejectedError) return anoncredsError(ErrorCode.ProofRejected, error.message)
  if (error instanceof PresentationInputError || error instanceof IssuanceError) return anoncredsError(ErrorCode.Input, error.message)
  if (error instanceof Error && (error.name === 'ProofFormatError' || error.name === 'PredicateNotSatisfiedError')) {
    return anoncredsError(ErrorCode.Input, error.message)
  }
  return toAnoncredsError(error)
}

/**
 * Creates an object implementing the whole `Anoncreds` interface of
 * `@hyperledger/anoncreds-shared` 0.3.x in TypeScript, with its own handle table (exposed as
 * `handles` for tests) and its store of issuer keys made ahead (`preparedKeys`: a caller that
 * generates keys off its main thread adds them there before `createCredentialDefinition`, which
 * then does not block). Every function throws `AnoncredsError` with anoncreds-rs codes
 * (remembered for `getCurrentError`, as `{"code","message"}` JSON). Revocation functions throw
 * "revocation not supported yet". Register it with `lib/register-node.ts` (Node) or
 * `lib/register.ts` (bundlers).
 */
export function createAnoncredsEngine(): Anoncreds & { readonly handles: HandleTable; readonly preparedKeys: PreparedCredentialKeys } {
  const handles = new HandleTable()
  const preparedKeys = new PreparedCredentialKeys()
  const ctx = engineContext(handles, preparedKeys)
  let lastError = { code: 0, message: '' }

  const api: Anoncreds = {
    version: () => ENGINE_VERSION,
    getCurrentError: () => JSON.stringify(lastError),
    setDefaultLogger: () => undefined,
    ...issuanceOps(ctx),
    ...objectOps(ctx),
    ...presentationOps(ctx),
    ...w3cOps(ctx),
    ...revocationOps(ctx),
  }

  const wrapped = {} as Record<string, unknown>
  for (const [name, fn] of Object.entries(api) as [string, (...args: unknown[]) => unknown][]) {
    wrapped[name] = (...args: unknown[]) => {
      try {
        return fn(...args)
      } catch (error) {
        const converted = engineError(error)
        lastError = { code: converted.code, message: converted.message }
        throw converted
      }
    }
  }
  return Object.assign(wrapped as Anoncreds, { handles, preparedKeys })
}
