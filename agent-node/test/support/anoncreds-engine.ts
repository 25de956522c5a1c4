/**
 * Registers the AnonCreds engine for a test process. Import it first in a test file that builds
 * Credo agents (or list it in vitest's `setupFiles`), before anything imports `@credo-ts/anoncreds`.
 */
import '../../src/anoncreds-registry/register.ts'
