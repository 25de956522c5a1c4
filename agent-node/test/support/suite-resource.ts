/**
 * One resource (a database, an agent-node…) for the enclosing test file or `describe`, made
 * before its first test and disposed of after its last.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest'

/**
 * Registers the hooks: `create` runs in `beforeAll` (within `timeoutMs`, vitest's default when
 * absent), `dispose` in `afterAll`. If `create` fails, every test fails with its error: a failing
 * `beforeAll` would only skip them.
 *
 * @returns a function giving the resource, valid inside tests and `beforeEach` hooks.
 */
export function useSuiteResource<T>(create: () => Promise<T>, dispose: (resource: T) => Promise<void>, timeoutMs?: number): () => T {
  let resource: { value: T } | undefined
  let failure: unknown
  beforeAll(async () => {
    try {
      resource = { value: await create() }
    } catch (error) {
      failure = error
    }
  }, timeoutMs)
  beforeEach(() => {
    if (failure) throw failure
  })
  afterAll(async () => {
    if (resource) await dispose(resource.value)
  })
  return () => {
    if (!resource) throw new Error('the resource is made in beforeAll; use it inside tests and beforeEach hooks')
    return resource.value
  }
}
