import type { Credential } from '../objects/credential.ts'
import type { EngineOps } from './context.ts'
import { inputError } from './errors.ts'
import type { ObjectTypeName } from './handles.ts'
import { objectFromJson, objectToJson } from './object-types.ts'

/**
 * Object handles and JSON: every `*FromJson` (except revocation), `getJson`, `getTypeName`,
 * `objectFree`, `credentialGetAttribute` (`schema_id`, `cred_def_id`, `rev_reg_id`,
 * `rev_reg_index`; absent values are `null`, as the native wrapper returns a null pointer).
 */
export const objectOps: EngineOps<
  | 'presentationRequestFromJson'
  | 'presentationFromJson'
  | 'credentialOfferFromJson'
  | 'schemaFromJson'
  | 'credentialRequestFromJson'
  | 'credentialRequestMetadataFromJson'
  | 'credentialFromJson'
  | 'credentialDefinitionFromJson'
  | 'credentialDefinitionPrivateFromJson'
  | 'keyCorrectnessProofFromJson'
  | 'w3cPresentationFromJson'
  | 'w3cCredentialFromJson'
  | 'getJson'
  | 'getTypeName'
  | 'objectFree'
  | 'credentialGetAttribute'
> = ({ handles, get }) => {
  const fromJson = (typeName: ObjectTypeName) => (o: { json: string }) => handles.put(typeName, objectFromJson(typeName, o.json))
  return {
    presentationRequestFromJson: fromJson('PresentationRequest'),
    presentationFromJson: fromJson('Presentation'),
    credentialOfferFromJson: fromJson('CredentialOffer'),
    schemaFromJson: fromJson('Schema'),
    credentialRequestFromJson: fromJson('CredentialRequest'),
    credentialRequestMetadataFromJson: fromJson('CredentialRequestMetadata'),
    credentialFromJson: fromJson('Credential'),
    credentialDefinitionFromJson: fromJson('CredentialDefinition'),
    credentialDefinitionPrivateFromJson: fromJson('CredentialDefinitionPrivate'),
    keyCorrectnessProofFromJson: fromJson('KeyCorrectnessProof'),
    w3cPresentationFromJson: fromJson('W3CPresentation'),
    w3cCredentialFromJson: fromJson('W3CCredential'),
    getJson: (o) => {
      const entry = handles.entry(o.objectHandle)
      return objectToJson(entry.typeName, entry.value)
    },
    getTypeName: (o) => handles.entry(o.objectHandle).typeName,
    objectFree: (o) => handles.free(o.objectHandle),
    credentialGetAttribute: (o) => {
      const credential = get<Credential>(o.objectHandle, 'Credential')
      switch (o.name) {
        case 'schema_id':
          return credential.schema_id
        case 'cred_def_id':
          return credential.cred_def_id
        case 'rev_reg_id':
          return credential.rev_reg_id as string
        case 'rev_reg_index':
          return (credential.signature.r_credential ? String(credential.signature.r_credential.i) : null) as string
        default:
          return inputError(`Unsupported attribute: ${o.name}`)
      }
    },
  }
}
