/**
 * The public DID's keys: Ed25519 keys created in, and used through, the agent's KMS (Credo's
 * `Kms.KeyManagementApi` on `wallet/kms`); their Multikey encodings (W3C Controlled Identifiers,
 * `publicKeyMultibase` = base58btc of multicodec header + raw key); and the signer and verifier
 * that didwebvh-ts needs for DID log proofs (Data Integrity `eddsa-jcs-2022`).
 */
import { Kms, TypedArrayEncoder, type AgentContext } from '@credo-ts/core'
import { ed25519 } from '@noble/curves/ed25519.js'
import { prepareDataForSigning, type Signer, type SigningInput, type SigningOutput, type Verifier } from 'didwebvh-ts'

/** An Ed25519 key held by the KMS: its KMS id and raw 32-byte public key. */
export interface KmsEd25519Key {
  keyId: string
  publicKey: Uint8Array
}

/** Creates a new Ed25519 key in the agent's KMS. */
export async function createEd25519Key(agentContext: AgentContext): Promise<KmsEd25519Key> {
  const { keyId, publicJwk } = await agentContext.resolve(Kms.KeyManagementApi).createKey({ type: { kty: 'OKP', crv: 'Ed25519' } })
  return { keyId, publicKey: TypedArrayEncoder.fromBase64(publicJwk.x) }
}

/** The public key of KMS key `keyId` (which must be Ed25519). */
export async function getEd25519Key(agentContext: AgentContext, keyId: string): Promise<KmsEd25519Key> {
  const publicJwk = await agentContext.resolve(Kms.KeyManagementApi).getPublicKey({ keyId })
  if (publicJwk.kty !== 'OKP' || publicJwk.crv !== 'Ed25519') throw new Error(`KMS key ${keyId} is not an Ed25519 key`)
  return { keyId, publicKey: TypedArrayEncoder.fromBase64(publicJwk.x) }
}

/** Multikey of an Ed25519 public key (`z6Mk…`; multicodec 0xed). */
export function ed25519Multikey(publicKey: Uint8Array): string {
  return `z${TypedArrayEncoder.toBase58(Uint8Array.of(0xed, 0x01, ...publicKey))}`
}

/** Multikey of the X25519 key derived from an Ed25519 public key (`z6LS…`; multicodec 0xec). */
export function x25519MultikeyFromEd25519(publicKey: Uint8Array): string {
  return `z${TypedArrayEncoder.toBase58(Uint8Array.of(0xec, 0x01, ...ed25519.utils.toMontgomery(publicKey)))}`
}

/**
 * Signs did:webvh log entries with a KMS key. The proof's verification method is the key's
 * `did:key` (`did:key:<multikey>#<multikey>`), as did:webvh requires for update keys.
 */
export class KmsDidLogSigner implements Signer {
  constructor(
    private readonly agentContext: AgentContext,
    private readonly key: KmsEd25519Key,
  ) {}

  getVerificationMethodId(): string {
    const multikey = ed25519Multikey(this.key.publicKey)
    return `did:key:${multikey}#${multikey}`
  }

  async sign(input: SigningInput): Promise<SigningOutput> {
    const data = await prepareDataForSigning(input.document, input.proof)
    const { signature } = await this.agentContext.resolve(Kms.KeyManagementApi).sign({ keyId: this.key.keyId, algorithm: 'EdDSA', data })
    return { proofValue: `z${TypedArrayEncoder.toBase58(signature)}` }
  }
}

/** Ed25519 signature check for didwebvh-ts (independent of the KMS: @noble/curves). */
export const ed25519Verifier: Verifier = {
  async verify(signature, message, publicKey) {
    try {
      return ed25519.verify(signature, message, publicKey)
    } catch {
      return false
    }
  },
}
