/**
 * Worker-thread side of issuer key generation (`CredentialKeyWorkers`): the two CPU-bound steps
 * of `createCredentialKeys`, run by a Piscina pool so the agent's event loop never waits on them.
 * Loaded by Piscina through `worker.mjs`: beside the sources, the shim that loads this file with
 * tsx; in the production bundle, this file bundled as `dist/worker.mjs` (`scripts/build.ts`).
 * bigints cross the thread boundary by structured clone.
 */
import { credentialKeysFromPrimes, safePrimeHalf, type CredentialKeys } from '../../../../shared/src/anoncreds/issuance/index.ts'

/** Task `safePrimeHalf`: p' of one new 1025-bit safe prime (about 0.2–0.3 s CPU at the median, random in length). */
export function safePrime(): bigint {
  return safePrimeHalf()
}

/** Task `keysFromPrimes`: the public key and its correctness proof for p', q' (0.1–0.3 s). */
export function keysFromPrimes(task: { attributeNames: string[]; pPrime: bigint; qPrime: bigint }): CredentialKeys {
  return credentialKeysFromPrimes(task.attributeNames, task.pPrime, task.qPrime)
}
