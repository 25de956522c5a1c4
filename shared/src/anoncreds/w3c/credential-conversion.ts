import { encodeAttributeValue } from '../encoding/index.ts'
import { ErrorCode, anoncredsError, revocationNotSupported } from '../lib/errors.ts'
import type { Credential } from '../objects/credential.ts'
import { type W3cCredential, anoncredsProofOf } from '../objects/w3c-credential.ts'
import { type W3cVersion, anoncredsContexts, issuanceDateNow } from './constants.ts'
import { type CredentialSignatureProofValue, type ProofValue, decodeProofValue, encodeProofValue } from './proof-value.ts'

const INT32 = /^[+-]?[0-9]+$/

/** A raw value as anoncreds-rs puts it in `credentialSubject`: i32 when it parses as one, else string. */
export function rawToSubjectValue(raw: string): string | number {
  if (INT32.test(raw)) {
    const n = Number(raw)
    if (Number.isInteger(n) && n >= -2147483648 && n <= 2147483647) return n
  }
  return raw
}

/**
 * The W3C credential carrying a credential signature (anoncreds-rs `W3CCredential::new`):
 * contexts of the version, type `VerifiableCredential`, `issuer`, `credentialSubject`, one
 * `assertionMethod` proof whose verification method is the cred def id, `issuanceDate` (now) for 1.1.
 */
export function buildW3cCredential(
  issuerId: string,
  subject: Record<string, string | number | boolean>,
  signature: CredentialSignatureProofValue,
  version: W3cVersion,
): W3cCredential {
  const credential: W3cCredential = {
    '@context': anoncredsContexts(version),
    type: ['VerifiableCredential'],
    issuer: issuerId,
    credentialSubject: subject,
    proof: [
      {
        cryptosuite: 'anoncreds-2023',
        type: 'DataIntegrityProof',
        proofPurpose: 'assertionMethod',
        verificationMethod: signature.cred_def_id,
        proofValue: encodeProofValue({ kind: 'credentialSignature', value: signature }),
        challenge: undefined,
      },
    ],
    id: undefined,
    issuanceDate: version === '1.1' ? issuanceDateNow() : undefined,
    validFrom: undefined,
  }
  return credential
}

/**
 * anoncreds-rs `credential_to_w3c`: the legacy credential as a W3C credential issued by
 * `issuerId`. Raw values become `credentialSubject` entries (numbers when they are i32).
 * Revocation data is not supported yet (throws).
 */
export function credentialToW3c(credential: Credential, issuerId: string, version: W3cVersion): W3cCredential {
  if (credential.signature.r_credential !== null || credential.rev_reg !== null || credential.witness !== null) {
    revocationNotSupported()
  }
  const subject: Record<string, string | number> = {}
  for (const [name, value] of Object.entries(credential.values)) subject[name] = rawToSubjectValue(value.raw)
  const signature: CredentialSignatureProofValue = {
    schema_id: credential.schema_id,
    cred_def_id: credential.cred_def_id,
    ...(credential.rev_reg_id !== null ? { rev_reg_id: credential.rev_reg_id } : {}),
    signature: { p_credential: credential.signature.p_credential, r_credential: null },
    signature_correctness_proof: credential.signature_correctness_proof,
  }
  return buildW3cCredential(issuerId, subject, signature, version)
}

/** The credential signature in a W3C credential's AnonCreds proof; throws `AnoncredsError` when absent. */
export function credentialSignatureOf(credential: W3cCredential): CredentialSignatureProofValue {
  const proof = anoncredsProofOf(credential)
  if (!proof) throw anoncredsError(ErrorCode.Input, 'W3C credential has no anoncreds-2023 proof')
  if (proof.proofPurpose !== 'assertionMethod') {
    throw anoncredsError(
      ErrorCode.Input,
      `DataIntegrityProof contains unexpected proof purpose (${proof.proofPurpose}), expected assertionMethod`,
    )
  }
  let decoded: ProofValue
  try {
    decoded = decodeProofValue(proof.proofValue)
  } catch (error) {
    if ((error as { code?: number }).code !== undefined) throw error
    throw anoncredsError(ErrorCode.Input, `Invalid proofValue: ${(error as Error).message}`)
  }
  if (decoded.kind !== 'credentialSignature') {
    throw anoncredsError(ErrorCode.Input, 'DataIntegrityProof does not contain credential signature proof')
  }
  return decoded.value
}

/**
 * anoncreds-rs `credential_from_w3c`: the legacy credential of a W3C credential. Values are
 * re-encoded from `credentialSubject` (numbers as their decimal), like anoncreds-rs.
 */
export function credentialFromW3c(credential: W3cCredential): Credential {
  const signature = credentialSignatureOf(credential)
  const values: Credential['values'] = {}
  for (const [name, value] of Object.entries(credential.credentialSubject)) {
    if (typeof value === 'boolean') throw anoncredsError(ErrorCode.Input, `Encoding is not supported for credential value ${name}`)
    const raw = String(value)
    values[name] = { raw, encoded: encodeAttributeValue(raw) }
  }
  return {
    schema_id: signature.schema_id,
    cred_def_id: signature.cred_def_id,
    rev_reg_id: signature.rev_reg_id ?? null,
    values,
    signature: { p_credential: signature.signature.p_credential, r_credential: null },
    signature_correctness_proof: signature.signature_correctness_proof,
    rev_reg: null,
    witness: null,
  }
}

/** Replaces the AnonCreds proof's signature of a W3C credential (after the holder processed it). */
export function withCredentialSignature(credential: W3cCredential, signature: CredentialSignatureProofValue): W3cCredential {
  const proofValue = encodeProofValue({ kind: 'credentialSignature', value: signature })
  const replace = (p: unknown) => ((p as { cryptosuite?: unknown }).cryptosuite === 'anoncreds-2023' ? { ...(p as object), proofValue } : p)
  const proof = Array.isArray(credential.proof) ? credential.proof.map(replace) : replace(credential.proof)
  return { ...credential, proof: proof as W3cCredential['proof'] }
}
