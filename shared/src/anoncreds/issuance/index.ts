export { createCredentialKeys, credentialKeysFromPrimes, safePrimeHalf, SAFE_PRIME_BITS, type CredentialKeys } from './keys.ts'
export { verifyKeyCorrectnessProof } from './keyCorrectness.ts'
export {
  blindLinkSecret,
  verifyBlindedLinkSecretProof,
  type BlindLinkSecretInput,
  type BlindedLinkSecret,
  type VerifyBlindedLinkSecretInput,
} from './blinding.ts'
export { credentialContext } from './context.ts'
export { signCredential, type SignCredentialInput, type SignedCredential } from './sign.ts'
export { processCredentialSignature, type ProcessCredentialSignatureInput } from './process.ts'
export * from './errors.ts'
export type * from './types.ts'
