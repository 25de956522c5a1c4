/**
 * JSON shapes of the issuance values, exactly as anoncreds-rs (anoncreds-clsignatures) writes
 * them: every big integer is a decimal string.
 */

/** `credentialDefinition.value.primary`: n = (2p'+1)(2q'+1), S, R_i = S^{x_i}, Z = S^{xz}, R_ctxt. */
export interface CredentialPrimaryPublicKey {
  n: string
  s: string
  /** attribute name (normalised, including `master_secret`) -> R_i */
  r: Record<string, string>
  rctxt: string
  z: string
}

/** `credentialDefinitionPrivate.value.p_key`: the Sophie Germain halves p', q' of the safe primes. */
export interface CredentialPrimaryPrivateKey {
  p: string
  q: string
}

/** `keyCorrectnessProof`; `xr_cap` lists [name, value] pairs in the order the proof was hashed. */
export interface CredentialKeyCorrectnessProof {
  c: string
  xz_cap: string
  xr_cap: [string, string][]
}

/** `credentialRequest.blinded_ms`. `ur` (revocation) is `null` here: revocation is not supported yet. */
export interface BlindedCredentialSecrets {
  u: string
  ur?: string | null
  hidden_attributes: string[]
  committed_attributes: Record<string, string>
}

/** `credentialRequest.blinded_ms_correctness_proof`. */
export interface BlindedCredentialSecretsCorrectnessProof {
  c: string
  v_dash_cap: string
  m_caps: Record<string, string>
  r_caps: Record<string, string>
}

/** `credential.signature.p_credential`: (m_2, A, e, v); v is v'' from the issuer, v' + v'' once processed. */
export interface PrimaryCredentialSignature {
  m_2: string
  a: string
  e: string
  v: string
}

/** `credential.signature_correctness_proof`. */
export interface SignatureCorrectnessProof {
  se: string
  c: string
}

/** Encoded attribute values: normalised name -> decimal string (see `encoding/`). */
export type EncodedValues = Record<string, string>
