/** A Credo `Repository` for any record class, on the agent's storage service (`DrizzleStorageService`). */
import { EventEmitter, InjectionSymbols, Repository, type AgentContext, type BaseRecord, type BaseRecordConstructor, type StorageService } from '@credo-ts/core'

/** The repository of `recordClass` records in `agentContext`'s storage. */
export function recordRepository<R extends BaseRecord>(agentContext: AgentContext, recordClass: BaseRecordConstructor<R>): Repository<R> {
  const { dependencyManager } = agentContext
  return new Repository(recordClass, dependencyManager.resolve<StorageService<R>>(InjectionSymbols.StorageService), dependencyManager.resolve(EventEmitter))
}
