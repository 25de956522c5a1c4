/**
 * The Credo record store of a test database, opened as agent-node opens it (`openWallet`: values
 * sealed with a key derived from a wallet key).
 */
import type { Database } from '../../src/database/index.ts'
import { openWallet } from '../../src/wallet/index.ts'
import type { DrizzleStorageService } from '../../src/wallet/storage/index.ts'

/** The wallet key of every test record store. */
export const TEST_WALLET_KEY = 'test wallet key'

/** `openWallet(database, TEST_WALLET_KEY).storageService`. */
export async function openRecordStore(database: Database): Promise<DrizzleStorageService> {
  return (await openWallet(database, TEST_WALLET_KEY)).storageService
}
