/**
 * The agent's key management: a Credo KMS backend (`ParleyKeyManagementService`, node:crypto plus
 * the NaCl box of DIDComm v1) over a key store encrypted at rest in the agent database
 * (`EncryptedKeyStorage`).
 *
 * ```ts
 * const storage = await EncryptedKeyStorage.open(database, config.walletKey)
 * const kms = new Kms.KeyManagementModule({ backends: [new ParleyKeyManagementService(storage)] })
 * // new Agent({ ..., modules: { kms, ... } })
 * ```
 */
export { EncryptedKeyStorage, WalletKeyError } from './EncryptedKeyStorage.ts'
export { ParleyKeyManagementService } from './ParleyKeyManagementService.ts'
