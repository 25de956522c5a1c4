// Entry of the key-generation worker threads (CredentialKeyWorkers.ts). Plain JavaScript because
// a worker thread does not inherit the tsx loader of the main thread: tsx is registered here, for
// this thread, and the TypeScript tasks are loaded through it. The production bundle has its own
// worker.mjs, worker.ts bundled (agent-node/scripts/build.ts).
import { tsImport } from 'tsx/esm/api'

const tasks = await tsImport('./worker.ts', import.meta.url)

export const { safePrime, keysFromPrimes } = tasks
