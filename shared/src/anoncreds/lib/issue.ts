import type { ObjectHandle } from '@hyperledger/anoncreds-shared'
import { encodeAttributeValue, normalizeAttributeName } from '../encoding/index.ts'
import { processCredentialSignature, signCredential } from '../issuance/index.ts'
import type { CredentialDefinition, CredentialDefinitionPrivate } from '../objects/credential-definition.ts'
import type { CredentialOffer } from '../objects/credential-offer.ts'
import type { CredentialRequest, CredentialRequestMetadata } from '../objects/credential-request.ts'
import type { Credential } from '../objects/credential.ts'
import type { EngineContext } from './context.ts'
import { inputError, revocationNotSupported } from './errors.ts'

/** Credential values keyed by normalised attribute name, as the CL layer signs them. */
export function clEncodedValues(values: Credential['values']): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(values)) out[normalizeAttributeName(name)] = value.encoded
  return out
}

/** Arguments shared by `createCredential` and `createW3cCredential`. */
export type IssueOptions = {
  credentialDefinition: ObjectHandle
  credentialDefinitionPrivate: ObjectHandle
  credentialOffer: ObjectHandle
  credentialRequest: ObjectHandle
  attributeRawValues: Record<string, string>
  attributeEncodedValues?: Record<string, string>
  revocationConfiguration?: unknown
}

/**
 * The issuer's side of `createCredential` (anoncreds-rs `issuer::create_credential`): values
 * `{ raw, encoded }` (the caller's encodings, else anoncreds encoding), the primary signature
 * over them with the offer and request nonces. Revocation is not supported yet.
 */
export function issueSignature(ctx: EngineContext, o: IssueOptions) {
  if (o.revocationConfiguration) revocationNotSupported()
  const credDef = ctx.get<CredentialDefinition>(o.credentialDefinition, 'CredentialDefinition')
  const credDefPrivate = ctx.get<CredentialDefinitionPrivate>(o.credentialDefinitionPrivate, 'CredentialDefinitionPrivate')
  const offer = ctx.get<CredentialOffer>(o.credentialOffer, 'CredentialOffer')
  const request = ctx.get<CredentialRequest>(o.credentialRequest, 'CredentialRequest')
  if (request.cred_def_id !== offer.cred_def_id) inputError('Credential request and offer are for different credential definitions')
  const names = Object.keys(o.attributeRawValues)
  if (names.length === 0) inputError('Cannot create credential with no attribute')
  const values: Credential['values'] = {}
  for (const name of names) {
    const raw = o.attributeRawValues[name] as string
    values[name] = { raw, encoded: o.attributeEncodedValues?.[name] ?? encodeAttributeValue(raw) }
  }
  const signed = signCredential({
    primary: credDef.value.primary,
    privateKey: credDefPrivate.value.p_key,
    blinded_ms: request.blinded_ms,
    blinded_ms_correctness_proof: request.blinded_ms_correctness_proof,
    offerNonce: offer.nonce,
    requestNonce: request.nonce,
    proverId: request.entropy ?? request.prover_did ?? '',
    encodedValues: clEncodedValues(values),
  })
  return { credDef, offer, values, signed }
}

/** Arguments shared by `processCredential` and `processW3cCredential`. */
export type ProcessOptions = {
  credentialRequestMetadata: ObjectHandle
  linkSecret: string
  credentialDefinition: ObjectHandle
  revocationRegistryDefinition?: ObjectHandle
}

/**
 * The holder's side (anoncreds-rs `prover::process_credential`): v = v' + v'', the signature
 * correctness proof checked with the request nonce. Returns the new primary signature.
 */
export function processSignature(
  ctx: EngineContext,
  pCredential: Credential['signature']['p_credential'],
  correctness: Credential['signature_correctness_proof'],
  values: Credential['values'],
  o: ProcessOptions,
): Credential['signature']['p_credential'] {
  if (o.revocationRegistryDefinition) revocationNotSupported()
  const metadata = ctx.get<CredentialRequestMetadata>(o.credentialRequestMetadata, 'CredentialRequestMetadata')
  const credDef = ctx.get<CredentialDefinition>(o.credentialDefinition, 'CredentialDefinition')
  return processCredentialSignature({
    primary: credDef.value.primary,
    p_credential: pCredential,
    signature_correctness_proof: correctness,
    vPrime: metadata.link_secret_blinding_data.v_prime,
    requestNonce: metadata.nonce,
    encodedValues: clEncodedValues(values),
    linkSecret: o.linkSecret,
  })
}
