/**
 * Seeding a fresh store with Credo's storage version, so `agent.initialize()` does not demand a
 * migration.
 *
 * `Agent.initialize` (`@credo-ts/core` `agent/Agent`) asks `StorageUpdateService.isUpToDate`,
 * which reads the `StorageVersionRecord` (id `STORAGE_VERSION_RECORD_ID`) and, when there is
 * none, saves one at `INITIAL_STORAGE_VERSION` ('0.1', a wallet from before the record
 * existed): initialization then aborts unless `autoUpdateStorageOnStartup` runs every update
 * from 0.1. A fresh Askar store avoids that by writing the record at
 * `StorageVersionRecord.frameworkStorageVersion` when it is provisioned
 * (`packages/askar/src/AskarStoreManager.ts`), and Credo's drizzle module does it in
 * `onInitializeContext` when the record is missing (`packages/drizzle-storage/src/DrizzleStorageModule.ts`).
 * This store is newer than Credo 0.6, so a context without the record is a fresh one.
 */
import {
  RecordDuplicateError,
  RecordNotFoundError,
  StorageVersionRecord,
  type AgentContext,
  type BaseRecordAny,
  type StorageService,
} from '@credo-ts/core'

/**
 * Returns the context's `StorageVersionRecord`, first saving one at the current framework
 * storage version (`StorageVersionRecord.frameworkStorageVersion`, '0.5' in Credo 0.6.3) if
 * the context has none. Idempotent; leaves an existing record (at any version) untouched.
 *
 * @throws whatever `storageService` throws, other than the not-found and duplicate errors it
 *   handles.
 */
export async function ensureStorageVersion(
  agentContext: AgentContext,
  storageService: StorageService<BaseRecordAny>,
): Promise<StorageVersionRecord> {
  const read = async () =>
    (await storageService.getById(agentContext, StorageVersionRecord, StorageVersionRecord.storageVersionRecordId)) as StorageVersionRecord
  try {
    return await read()
  } catch (error) {
    if (!(error instanceof RecordNotFoundError)) throw error
  }
  const record = new StorageVersionRecord({ storageVersion: StorageVersionRecord.frameworkStorageVersion })
  try {
    await storageService.save(agentContext, record)
    return record
  } catch (error) {
    // another caller seeded the same context in between
    if (error instanceof RecordDuplicateError) return read()
    throw error
  }
}
