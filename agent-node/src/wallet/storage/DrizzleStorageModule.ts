/**
 * The Credo module that makes `DrizzleStorageService` the agent's storage.
 */
import { CredoError, InjectionSymbols, type AgentContext, type DependencyManager, type Module } from '@credo-ts/core'
import type { DrizzleStorageService } from './DrizzleStorageService.ts'
import { ensureStorageVersion } from './storageVersion.ts'

/**
 * Registers the given service as `InjectionSymbols.StorageService` (what `new Agent` requires:
 * "You can register it using the AskarModule, DrizzleStorageModule, or implement your own", in
 * `@credo-ts/core` 0.6.3 `agent/Agent`), and seeds every context it initializes with the
 * current storage version (`ensureStorageVersion`), before `agent.initialize()` checks it.
 *
 * @example
 *   const storage = await DrizzleStorageService.open(await openDatabase(path))
 *   const agent = new Agent({
 *     dependencies: agentDependencies,
 *     modules: { storage: new DrizzleStorageModule(storage), ... },
 *   })
 *   await agent.initialize()
 */
export class DrizzleStorageModule implements Module {
  public constructor(private readonly storageService: DrizzleStorageService) {}

  /** @throws {CredoError} if another storage service is registered already (e.g. Askar's). */
  public register(dependencyManager: DependencyManager): void {
    if (dependencyManager.isRegistered(InjectionSymbols.StorageService)) {
      throw new CredoError('A StorageService is registered already; register only one storage module')
    }
    dependencyManager.registerInstance(InjectionSymbols.StorageService, this.storageService)
  }

  /** Called by Credo for each agent context it initializes (the root one first). */
  public async onInitializeContext(agentContext: AgentContext): Promise<void> {
    await ensureStorageVersion(agentContext, this.storageService)
  }
}
