/**
 * Issuer key generation for AnonCreds credential definitions off the event loop. Credo calls the
 * engine's synchronous `createCredentialDefinition`, which would spend about a second (random in
 * length) on two safe primes and freeze the agent meanwhile; `prepare` makes the keys in worker threads first (the two
 * primes in parallel, or taken from the reserve of primes searched ahead of time, then the key
 * and its correctness proof) and hands them to the engine's `preparedKeys`, so the synchronous
 * call that follows only stores them.
 */
import { Piscina } from 'piscina'
import { credentialKeyAttributeNames } from '../../../../shared/src/anoncreds/lib/index.ts'
import type { CredentialKeys } from '../../../../shared/src/anoncreds/issuance/index.ts'
import { anoncredsEngine } from '../register.ts'
import { SafePrimeReserve } from './SafePrimeReserve.ts'

/** Progress of one key generation, for a log line: which step finished and when (ms since start). */
export interface KeyGenerationProgress {
  step: 'safe prime' | 'keys'
  /** For a safe prime: taken from the reserve (searched ahead of time) or searched for now. */
  source?: 'reserve' | 'search'
  /** Steps finished so far, of `total` (two primes, then the keys). */
  done: number
  total: number
  elapsedMs: number
}

/** Options of `CredentialKeyWorkers`. */
export interface CredentialKeyWorkerOptions {
  /** Worker threads at most (default two: one per prime). */
  threads?: number
  /**
   * Safe primes to keep ready (default 0: none; agent-node passes ANONCREDS_SAFE_PRIME_RESERVE).
   * Filling starts after the first key generation, or with `fillReserve`.
   */
  reserve?: number
}

/**
 * Worker threads for key generation; threads start on first use and exit when idle. One instance
 * per process is enough (`close` ends its threads).
 */
export class CredentialKeyWorkers {
  private pool?: Piscina
  private readonly threads: number
  private readonly reserve: SafePrimeReserve

  constructor(options: CredentialKeyWorkerOptions = {}) {
    this.threads = options.threads ?? 2
    this.reserve = new SafePrimeReserve(options.reserve ?? 0, () => this.run<bigint>(undefined, 'safePrime'))
  }

  /** Safe primes ready in the reserve. */
  get reservedPrimes(): number {
    return this.reserve.ready
  }

  /**
   * Starts filling the reserve in the background (one search at a time). The promise resolves
   * once it is full, or filling stopped (a key generation took from it, `close`); it never rejects.
   */
  fillReserve(): Promise<void> {
    return this.reserve.fill()
  }

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
    const start = performance.now()
    let done = 0
    const report = (step: KeyGenerationProgress['step'], source?: KeyGenerationProgress['source']) =>
      onProgress?.({ step, ...(source && { source }), done: ++done, total: 3, elapsedMs: performance.now() - start })
    // a reserved prime may still be searched for (the search in flight); if that search failed, search again
    const prime = async (reserved?: Promise<bigint>): Promise<bigint> => {
      const taken = await reserved?.catch(() => undefined)
      const half = taken ?? (await this.run<bigint>(undefined, 'safePrime'))
      report('safe prime', taken === undefined ? 'search' : 'reserve')
      return half
    }
    try {
      const [p, q] = this.reserve.take(2)
      let [pPrime, qPrime] = await Promise.all([prime(p), prime(q)])
      while (pPrime === qPrime) qPrime = await prime()
      const keys = await this.run<CredentialKeys>({ attributeNames, pPrime, qPrime }, 'keysFromPrimes')
      report('keys')
      return keys
    } finally {
      // refilled after every generation, so an agent that never issues never searches ahead
      void this.reserve.fill()
    }
  }

  /** Ends the worker threads (waiting tasks fail) and forgets the reserve. */
  async close(): Promise<void> {
    this.reserve.close()
    await this.pool?.destroy()
    this.pool = undefined
  }

  private async run<T>(task: unknown, name: 'safePrime' | 'keysFromPrimes'): Promise<T> {
    this.pool ??= new Piscina({
      // beside this module: the tsx shim next to the sources, the bundled worker next to dist/main.mjs
      filename: new URL('./worker.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: 5_000,
    })
    return (await this.pool.run(task, { name })) as T
  }
}
