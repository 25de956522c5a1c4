import { encodeAttributeValue } from '../encoding/index.ts'
import { blindLinkSecret, createCredentialKeys } from '../issuance/index.ts'
import type { CredentialDefinition, KeyCorrectnessProofObject } from '../objects/credential-definition.ts'
import type { CredentialOffer } from '../objects/credential-offer.ts'
import type { Credential } from '../objects/credential.ts'
import type { Schema } from '../objects/schema.ts'
import type { EngineOps } from './context.ts'
import { inputError, revocationNotSupported } from './errors.ts'
import { issueSignature, processSignature } from './issue.ts'
import { createLinkSecret, generateNonce } from './random-values.ts'
import { credentialKeyAttributeNames } from './prepared-keys.ts'

/**
 * The legacy issuance part of the interface: schemas, credential definitions (signature type
 * `CL`, no revocation; keys prepared ahead in `ctx.preparedKeys` are used first), offers, link secrets, requests (entropy or prover DID), credentials and
 * their processing, attribute encoding.
 */
export const issuanceOps: EngineOps<
  | 'generateNonce'
  | 'createLinkSecret'
  | 'createSchema'
  | 'createCredentialDefinition'
  | 'createCredentialOffer'
  | 'createCredentialRequest'
  | 'createCredential'
  | 'encodeCredentialAttributes'
  | 'processCredential'
> = (ctx) => ({
  generateNonce,
  createLinkSecret,

  createSchema: (o) => ctx.put('Schema', { name: o.name, version: o.version, attrNames: o.attributeNames, issuerId: o.issuerId }),

  createCredentialDefinition: (o) => {
    if (o.signatureType !== 'CL') inputError('Invalid signature type')
    if (o.supportRevocation) revocationNotSupported()
    const schema = ctx.get<Schema>(o.schema, 'Schema')
    const names = credentialKeyAttributeNames(schema.attrNames)
    const keys = ctx.preparedKeys.take(names) ?? createCredentialKeys(names)
    return {
      credentialDefinition: ctx.put('CredentialDefinition', {
        schemaId: o.schemaId,
        type: 'CL',
        tag: o.tag,
        value: { primary: keys.primary },
        issuerId: o.issuerId,
      }),
      credentialDefinitionPrivate: ctx.put('CredentialDefinitionPrivate', { value: { p_key: keys.privateKey, r_key: null } }),
      keyCorrectnessProof: ctx.put('KeyCorrectnessProof', keys.keyCorrectnessProof),
    }
  },

  createCredentialOffer: (o) =>
    ctx.put('CredentialOffer', {
      schema_id: o.schemaId,
      cred_def_id: o.credentialDefinitionId,
      key_correctness_proof: ctx.get<KeyCorrectnessProofObject>(o.keyCorrectnessProof, 'KeyCorrectnessProof'),
      nonce: generateNonce(),
    }),

  createCredentialRequest: (o) => {
    if (o.entropy && o.proverDid) inputError('Prover did and entropy must not both be supplied')
    if (!o.entropy && !o.proverDid) inputError('entropy is required')
    const credDef = ctx.get<CredentialDefinition>(o.credentialDefinition, 'CredentialDefinition')
    const offer = ctx.get<CredentialOffer>(o.credentialOffer, 'CredentialOffer')
    const blinded = blindLinkSecret({
      primary: credDef.value.primary,
      keyCorrectnessProof: offer.key_correctness_proof,
      linkSecret: o.linkSecret,
      offerNonce: offer.nonce,
    })
    const nonce = generateNonce()
    return {
      credentialRequest: ctx.put('CredentialRequest', {
        entropy: o.entropy || undefined,
        prover_did: o.entropy ? undefined : o.proverDid,
        cred_def_id: offer.cred_def_id,
        blinded_ms: { ...blinded.blinded_ms, ur: blinded.blinded_ms.ur ?? null },
        blinded_ms_correctness_proof: blinded.blinded_ms_correctness_proof,
        nonce,
      }),
      credentialRequestMetadata: ctx.put('CredentialRequestMetadata', {
        link_secret_blinding_data: { v_prime: blinded.vPrime, vr_prime: null },
        nonce,
        link_secret_name: o.linkSecretId,
      }),
    }
  },

  createCredential: (o) => {
    const { offer, values, signed } = issueSignature(ctx, o)
    return ctx.put('Credential', {
      schema_id: offer.schema_id,
      cred_def_id: offer.cred_def_id,
      rev_reg_id: null,
      values,
      signature: { p_credential: signed.p_credential, r_credential: null },
      signature_correctness_proof: signed.signature_correctness_proof,
      rev_reg: null,
      witness: null,
    })
  },

  encodeCredentialAttributes: (o) => o.attributeRawValues.map(encodeAttributeValue),

  processCredential: (o) => {
    const credential = ctx.get<Credential>(o.credential, 'Credential')
    if (credential.signature.r_credential !== null) revocationNotSupported()
    const pCredential = processSignature(
      ctx,
      credential.signature.p_credential,
      credential.signature_correctness_proof,
      credential.values,
      o,
    )
    return ctx.put('Credential', { ...credential, signature: { p_credential: pCredential, r_credential: null } })
  },
})
