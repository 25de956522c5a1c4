import { randomBits } from '../math/index.ts'

/** anoncreds-clsignatures `new_nonce`: 80 random bits, as a decimal string. */
export function generateNonce(): string {
  return randomBits(80).toString()
}

/** anoncreds-clsignatures `new_link_secret`: 256 random bits, as a decimal string. */
export function createLinkSecret(): string {
  return randomBits(256).toString()
}
