/**
 * Registers the AnonCreds engine for a test process, before anything imports `@credo-ts/anoncreds`:
 * the node project of `vitest.config.ts` lists it in `setupFiles`, so it runs before every file.
 */
import '../../src/anoncreds-registry/register.ts'
