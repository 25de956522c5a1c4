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
export { EncryptedKeyStorage } from './EncryptedKeyStorage.ts'
export { deriveWalletKeys, SealedValueError, SealingKey, WalletKeyError, type SealedValue, type WalletKeys } from './WalletKeys.ts'
export { BOX_CIPHER, BOX_KEY_AGREEMENT, ParleyKeyManagementService } from './ParleyKeyManagementService.ts'
