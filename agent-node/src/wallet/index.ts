/**
 * The agent's wallet without native code: keys in `kms/` (encrypted at rest with the wallet
 * key), Credo records in `storage/` (drizzle), both in the agent database.
 */
import type { Database } from '../database/index.ts'
import { deriveWalletKeys, EncryptedKeyStorage, ParleyKeyManagementService } from './kms/index.ts'
import { DrizzleStorageService } from './storage/index.ts'

export interface Wallet {
  kms: ParleyKeyManagementService
  storageService: DrizzleStorageService
}

/**
 * Opens (creating on first use) the key store and the record store in `database`, both
 * encrypted at rest with keys derived from `walletKey` (`kms/WalletKeys.ts`).
 * @throws WalletKeyError when `walletKey` is not the key the store was created with.
 */
export async function openWallet(database: Database, walletKey: string): Promise<Wallet> {
  const keys = await deriveWalletKeys(database, walletKey)
  return {
    kms: new ParleyKeyManagementService(new EncryptedKeyStorage(database, keys.kms)),
    storageService: await DrizzleStorageService.open(database, keys.records),
  }
}
