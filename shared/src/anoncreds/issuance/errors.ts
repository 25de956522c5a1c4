/** Errors of the issuance steps; the lib layer maps them to `AnoncredsError`. */

/** Base class of every issuance error. */
export class IssuanceError extends Error {
  override name = 'IssuanceError'
}

/** An input is malformed: not a decimal integer, a missing or unknown attribute, an empty list. */
export class InvalidIssuanceInputError extends IssuanceError {
  override name = 'InvalidIssuanceInputError'
}

/** The issuer's key-correctness proof does not verify against the public key. */
export class KeyCorrectnessProofError extends IssuanceError {
  override name = 'KeyCorrectnessProofError'
}

/** The holder's blinded-link-secret correctness proof does not verify (wrong nonce or tampered). */
export class BlindedLinkSecretProofError extends IssuanceError {
  override name = 'BlindedLinkSecretProofError'
}

/** The issued signature or its correctness proof does not verify on the holder's side. */
export class SignatureCorrectnessProofError extends IssuanceError {
  override name = 'SignatureCorrectnessProofError'
}

/** A value that must be a unit modulo n is not (it shares a factor with n). */
export class NotInvertibleError extends InvalidIssuanceInputError {
  override name = 'NotInvertibleError'
}
