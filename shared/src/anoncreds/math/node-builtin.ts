/**
 * Node's built-in modules for the engine's optional native paths (OpenSSL's exponentiation and
 * primality test, the GMP addon), reached through `process.getBuiltinModule` rather than an
 * `import` of a `node:` module, so that the engine still loads in workerd, which has none.
 */

/**
 * The built-in module `id` (e.g. `node:crypto`) as `T`, or undefined where the runtime has no
 * `process.getBuiltinModule` or no such module. `T` is the caller's description of the few
 * members it uses; nothing checks it.
 */
export function nodeBuiltin<T>(id: string): T | undefined {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  return process?.getBuiltinModule?.(id) as T | undefined
}
