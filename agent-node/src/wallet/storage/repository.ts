/**
 * A Credo `Repository` for one of Parley's own record classes, on the agent's storage service, so
 * Parley's records live beside Credo's (SQLite or PostgreSQL alike) and are queried by their tags.
 */
import {
  EventEmitter,
  InjectionSymbols,
  Repository,
  type AgentContext,
  type BaseRecord,
  type BaseRecordConstructor,
  type StorageService,
} from '@credo-ts/core'

/** The repository of `recordClass` records in `agentContext`'s storage. */
export function recordRepository<R extends BaseRecord>(agentContext: AgentContext, recordClass: BaseRecordConstructor<R>): Repository<R> {
  const { dependencyManager } = agentContext
  return new Repository(
    recordClass,
    dependencyManager.resolve<StorageService<R>>(InjectionSymbols.StorageService),
    dependencyManager.resolve(EventEmitter),
  )
}
