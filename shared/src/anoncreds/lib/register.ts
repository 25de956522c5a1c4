import * as shared from '@hyperledger/anoncreds-shared'
import { createAnoncredsEngine } from './engine.ts'
import { useAnoncredsSharedClasses } from './runtime-classes.ts'

/**
 * Registers a new engine with `@hyperledger/anoncreds-shared` through an ordinary ESM import of
 * it — for bundled code (workerd via wrangler/esbuild, whose CommonJS interop reads exports
 * live). On plain Node with native ESM use `lib/register-node.ts` instead, first thing: a named
 * ESM import of the package evaluated before registration keeps `anoncreds` undefined.
 * Returns the engine.
 */
export function registerAnoncredsEngine(): ReturnType<typeof createAnoncredsEngine> {
  useAnoncredsSharedClasses(shared)
  const engine = createAnoncredsEngine()
  shared.registerAnoncreds({ lib: engine })
  return engine
}
