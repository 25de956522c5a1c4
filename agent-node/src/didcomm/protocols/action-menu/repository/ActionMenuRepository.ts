/** Storage of `ActionMenuRecord`s, in the agent's own storage service. */
import { EventEmitter, InjectionSymbols, Repository, inject, injectable, type StorageService } from '@credo-ts/core'
import { ActionMenuRecord } from './ActionMenuRecord.ts'

@injectable()
export class ActionMenuRepository extends Repository<ActionMenuRecord> {
  constructor(
    @inject(InjectionSymbols.StorageService) storageService: StorageService<ActionMenuRecord>,
    @inject(EventEmitter) eventEmitter: EventEmitter,
  ) {
    super(ActionMenuRecord, storageService, eventEmitter)
  }
}
