/**
 * Issuer key generation for AnonCreds credential definitions off the event loop. Credo calls the
 * engine's synchronous `createCredentialDefinition`, which would spend seconds on two safe primes
 * and freeze the agent meanwhile; `prepare` makes the keys in worker threads first (the two
 * primes in parallel, then the key and its correctness proof) and hands them to the engine's
 * `preparedKeys`, so the synchronous call that follows only stores them.
 */
import { Piscina } from 'piscina'
import { credentialKeyAttributeNames } from '../../../../shared/src/anoncreds/lib/index.ts'
import type { CredentialKeys } from '../../../../shared/src/anoncreds/issuance/index.ts'
import { anoncredsEngine } from '../register.ts'

/** Progress of one key generation, for a log line: which step finished and when (ms since start). */
export interface KeyGenerationProgress {
  step: 'safe prime' | 'keys'
  /** Steps finished so far, of `total` (two primes, then the keys). */
  done: number
  total: number
  elapsedMs: number
}

/**
 * Worker threads for key generation; threads start on first use and exit when idle. One instance
 * per process is enough (`close` ends its threads).
 */
export class CredentialKeyWorkers {
  private pool?: Piscina

  /** @param threads worker threads at most (two: one per prime). */
  constructor(private readonly threads = 2) {}

  /**
   * Makes the keys of a credential definition for a schema with `schemaAttributeNames` in worker
   * threads and adds them to the registered engine's prepared keys; Credo's next
   * `createCredentialDefinition` for a schema with these attributes uses them.
   * @throws AnoncredsError (code Input) for attribute names the engine refuses.
   */
  async prepare(schemaAttributeNames: readonly string[], onProgress?: (progress: KeyGenerationProgress) => void): Promise<void> {
    const attributeNames = credentialKeyAttributeNames(schemaAttributeNames)
    anoncredsEngine.preparedKeys.add(attributeNames, await this.generate(attributeNames, onProgress))
  }

  /** The keys for normalised `attributeNames` (with `master_secret`), made in worker threads. */
  async generate(attributeNames: string[], onProgress?: (progress: KeyGenerationProgress) => void): Promise<CredentialKeys> {
    this.pool ??= new Piscina({
      filename: new URL('./worker.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: 5_000,
    })
    const pool = this.pool
    const start = performance.now()
    let done = 0
    const report = (step: KeyGenerationProgress['step']) =>
      onProgress?.({ step, done: ++done, total: 3, elapsedMs: performance.now() - start })
    const prime = async (): Promise<bigint> => {
      const half = (await pool.run(undefined, { name: 'safePrime' })) as bigint
      report('safe prime')
      return half
    }
    let [pPrime, qPrime] = await Promise.all([prime(), prime()])
    while (pPrime === qPrime) qPrime = await prime()
    const keys = (await pool.run({ attributeNames, pPrime, qPrime }, { name: 'keysFromPrimes' })) as CredentialKeys
    report('keys')
    return keys
  }

  /** Ends the worker threads (waiting tasks fail). */
  async close(): Promise<void> {
    await this.pool?.destroy()
    this.pool = undefined
  }
}
