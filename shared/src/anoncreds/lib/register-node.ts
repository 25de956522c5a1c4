/**
 * Node-only registration of the TypeScript AnonCreds engine with `@hyperledger/anoncreds-shared`.
 *
 * `@credo-ts/anoncreds` reads the engine through `import { anoncreds } from
 * '@hyperledger/anoncreds-shared'`. That package is CommonJS, and Node's ESM loader copies a
 * CommonJS module's named exports once, when ESM first imports it; registering afterwards leaves
 * the ESM binding `undefined`. This module therefore reaches the package through `createRequire`
 * (the CommonJS instance, which the ESM facade is later built from), hands the engine the
 * package's `AnoncredsError` / `ObjectHandle` classes, and calls `registerAnoncreds({ lib })` —
 * without any ESM import of the package anywhere in its import graph.
 * (agent-node's production bundle, which has one instance of the package and reads its exports
 * where it uses them, gives this module a `createRequire` returning that instance:
 * `agent-node/scripts/build.ts`.)
 *
 * Usage: import it FIRST in every Node entry point, before anything that imports Credo:
 *
 * ```ts
 * import '@parley/shared/anoncreds/lib/register-node.ts' // or a relative path; must be the first import
 * import { Agent } from '@credo-ts/core'
 * ```
 *
 * ES modules evaluate their imports in order, depth first, so a first side-effect import runs
 * before any later import graph. Importing it twice is harmless (the first engine stays).
 * Exports the registered engine for direct use and tests.
 *
 * On Node the proofs' products also run on native arithmetic (`useNativeArithmetic`): GMP's
 * multiplication and exponentiation where its addon is built (`math/gmp-arithmetic.ts`; about 3x
 * faster presentations and verifications), else OpenSSL's exponentiation for variable factors
 * where that is cheaper (about 10 % of a verification).
 */
import { createRequire } from 'node:module'
import type { Anoncreds, AnoncredsError, ObjectHandle } from '@hyperledger/anoncreds-shared'
import { gmpArithmetic, opensslPower } from '../math/index.ts'
import { useNativeArithmetic } from '../proof/index.ts'
import { createAnoncredsEngine } from './engine.ts'
import { useAnoncredsSharedClasses } from './runtime-classes.ts'

type SharedModule = {
  anoncreds: Anoncreds | undefined
  registerAnoncreds: (options: { lib: Anoncreds }) => void
  AnoncredsError: new (error: { code: number; message: string; extra?: string }) => AnoncredsError
  ObjectHandle: new (handle: number) => ObjectHandle
}

const require = createRequire(import.meta.url)
const shared = require('@hyperledger/anoncreds-shared') as SharedModule

const MARK = Symbol.for('parley.anoncreds-ts.engine')

const gmp = gmpArithmetic()

/**
 * The arithmetic the proofs run on in this process, for start-up logs: `gmp` (the addon is
 * built) or `bigint+openssl` (it is not: `npm run build:native`).
 */
export const anoncredsArithmetic: 'gmp' | 'bigint+openssl' = gmp ? 'gmp' : 'bigint+openssl'

function register(): ReturnType<typeof createAnoncredsEngine> {
  const current = shared.anoncreds as (Anoncreds & { [MARK]?: true }) | undefined
  if (current?.[MARK]) return current as ReturnType<typeof createAnoncredsEngine>
  useAnoncredsSharedClasses(shared)
  useNativeArithmetic(gmp ?? { power: opensslPower() })
  const engine = Object.assign(createAnoncredsEngine(), { [MARK]: true as const })
  shared.registerAnoncreds({ lib: engine })
  return engine
}

/** The engine registered with `@hyperledger/anoncreds-shared` (the CommonJS instance). */
export const anoncredsEngine = register()
