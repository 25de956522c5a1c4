/** The holder processes the issuer's signature: v = v' + v'', then checks it. */
import { isProbablePrime } from '../math/index.ts'
import { attributeTerms } from './attributeValues.ts'
import { LINK_SECRET_ATTRIBUTE } from '../encoding/index.ts'
import { parseDecimal, toDecimal } from './decimal.ts'
import { InvalidIssuanceInputError, NotInvertibleError, SignatureCorrectnessProofError } from './errors.ts'
import { publicModulus } from './modulus.ts'
import { parsePrimaryKey } from './primaryKey.ts'
import { checkSignatureCorrectnessProof } from './signatureCorrectness.ts'
import { signatureQuotient } from './signatureQuotient.ts'
import type { CredentialPrimaryPublicKey, EncodedValues, PrimaryCredentialSignature, SignatureCorrectnessProof } from './types.ts'

/** Input of `processCredentialSignature`. */
export interface ProcessCredentialSignatureInput {
  primary: CredentialPrimaryPublicKey
  /** the issuer's signature, `v` = v'' */
  p_credential: PrimaryCredentialSignature
  signature_correctness_proof: SignatureCorrectnessProof
  /** v' from `blindLinkSecret` (request metadata `link_secret_blinding_data.v_prime`), decimal */
  vPrime: string
  /** the nonce of the credential REQUEST (decimal) */
  requestNonce: string
  /** the credential's encoded values, without `master_secret` */
  encodedValues: EncodedValues
  /** the link secret (decimal), the value of `master_secret` */
  linkSecret: string
}

/**
 * Processes a received credential signature (holder side).
 *
 * Sets v = v' + v'', then checks: e is a probable prime; with Q = Z / (S^v · R_ctxt^m_2 ·
 * Π R_i^m_i) over all attributes including `master_secret` = linkSecret, A^e = Q (mod n); and
 * the signature-correctness proof: c = H(Q, A, A^(c + se·e), requestNonce).
 *
 * @returns the processed `p_credential` `{ m_2, a, e, v }` (decimal strings, v = v' + v'')
 * @throws SignatureCorrectnessProofError when e is not prime, A^e ≠ Q, or the proof's challenge
 *   does not match
 * @throws InvalidIssuanceInputError on malformed numbers or missing/unknown attribute values
 *
 * Spec: AnonCreds v1 specification, "Receiving a Credential" (processing the signature);
 * anoncreds-clsignatures `Prover::process_credential_signature`.
 */
export function processCredentialSignature(input: ProcessCredentialSignatureInput): PrimaryCredentialSignature {
  const key = parsePrimaryKey(input.primary)
  const credential = input.p_credential
  const proofJson = input.signature_correctness_proof
  if (credential === null || typeof credential !== 'object' || proofJson === null || typeof proofJson !== 'object') {
    throw new InvalidIssuanceInputError('p_credential and signature_correctness_proof must be objects')
  }
  const m2 = parseDecimal(credential.m_2, 'p_credential.m_2')
  const a = parseDecimal(credential.a, 'p_credential.a')
  const e = parseDecimal(credential.e, 'p_credential.e')
  const v = parseDecimal(input.vPrime, 'vPrime') + parseDecimal(credential.v, 'p_credential.v')
  const proof = {
    se: parseDecimal(proofJson.se, 'signature_correctness_proof.se'),
    c: parseDecimal(proofJson.c, 'signature_correctness_proof.c'),
  }
  const nonce = parseDecimal(input.requestNonce, 'requestNonce')
  if (input.encodedValues !== null && typeof input.encodedValues === 'object' && LINK_SECRET_ATTRIBUTE in input.encodedValues) {
    throw new InvalidIssuanceInputError(`'${LINK_SECRET_ATTRIBUTE}' is the link secret, not an encoded value`)
  }
  const terms = attributeTerms(key, { ...input.encodedValues, [LINK_SECRET_ATTRIBUTE]: input.linkSecret })

  if (!isProbablePrime(e)) throw new SignatureCorrectnessProofError('invalid signature correctness proof: e is not prime')
  const modulus = publicModulus(key.n)
  let q: bigint
  try {
    q = signatureQuotient(key, modulus, v, m2, terms)
  } catch (error) {
    if (error instanceof NotInvertibleError) throw new SignatureCorrectnessProofError('invalid signature: Q is undefined')
    throw error
  }
  if (modulus.pow(a, e) !== q) throw new SignatureCorrectnessProofError('invalid signature correctness proof: A^e ≠ Q')
  if (!checkSignatureCorrectnessProof(modulus, q, a, e, proof, nonce)) {
    throw new SignatureCorrectnessProofError('invalid signature correctness proof: challenge mismatch')
  }
  return { m_2: toDecimal(m2), a: toDecimal(a), e: toDecimal(e), v: toDecimal(v) }
}
