import type {
  AnoncredsError as SharedAnoncredsError,
  AnoncredsErrorObject,
  ObjectHandle as SharedObjectHandle,
} from '@hyperledger/anoncreds-shared'

// Why this indirection: `@hyperledger/anoncreds-shared` is CommonJS, and Node's ESM loader
// snapshots a CommonJS module's named exports the first time ESM imports it. If any module of
// this engine imported it (for `AnoncredsError` or `ObjectHandle`) before `registerAnoncreds`
// ran, `import { anoncreds }` in `@credo-ts/anoncreds` would stay `undefined`. So the engine only
// imports its *types*, and uses the package's classes once a registration entry hands them over
// (`lib/register-node.ts` reaches them through `createRequire`). Until then, look-alike fallbacks
// with the same fields are used.

/** Stand-in for anoncreds-shared's `AnoncredsError` before registration (same fields). */
class FallbackAnoncredsError extends Error {
  readonly code: number
  readonly extra?: string
  constructor({ code, message, extra }: AnoncredsErrorObject) {
    super(message)
    this.code = code
    this.extra = extra
  }
}

/** Stand-in for anoncreds-shared's `ObjectHandle` before registration (same `handle` getter). */
class FallbackObjectHandle {
  private readonly _handle: number
  constructor(handle: number) {
    this._handle = handle
  }
  get handle(): number {
    return this._handle
  }
}

type Classes = {
  AnoncredsError: new (error: AnoncredsErrorObject) => SharedAnoncredsError
  ObjectHandle: new (handle: number) => SharedObjectHandle
}

const classes: Classes = {
  AnoncredsError: FallbackAnoncredsError as unknown as Classes['AnoncredsError'],
  ObjectHandle: FallbackObjectHandle as unknown as Classes['ObjectHandle'],
}

/**
 * Makes the engine create `AnoncredsError`s and `ObjectHandle`s of the given
 * `@hyperledger/anoncreds-shared` instance (call before registering the engine with it).
 */
export function useAnoncredsSharedClasses(shared: Classes): void {
  classes.AnoncredsError = shared.AnoncredsError
  classes.ObjectHandle = shared.ObjectHandle
}

/** A new `AnoncredsError` of the registered package (or the fallback). */
export function newAnoncredsError(error: AnoncredsErrorObject): SharedAnoncredsError {
  return new classes.AnoncredsError(error)
}

/** A new `ObjectHandle` of the registered package (or the fallback). */
export function newObjectHandle(handle: number): SharedObjectHandle {
  return new classes.ObjectHandle(handle)
}

/** Whether `value` is an `AnoncredsError` (of the registered package or the fallback). */
export function isAnoncredsError(value: unknown): value is SharedAnoncredsError {
  return value instanceof classes.AnoncredsError || value instanceof FallbackAnoncredsError
}
