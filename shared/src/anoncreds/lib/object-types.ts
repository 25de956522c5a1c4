import type { z } from 'zod'
import {
  credentialDefinitionPrivateSchema,
  credentialDefinitionSchema,
  keyCorrectnessProofSchema,
} from '../objects/credential-definition.ts'
import { credentialOfferSchema } from '../objects/credential-offer.ts'
import { credentialRequestMetadataSchema, credentialRequestSchema } from '../objects/credential-request.ts'
import { credentialSchema } from '../objects/credential.ts'
import { parseObjectJson, parseObjectValue } from '../objects/parse.ts'
import { presentationRequestSchema, presentationRequestToJson } from '../objects/presentation-request.ts'
import { presentationSchema } from '../objects/presentation.ts'
import { schemaSchema } from '../objects/schema.ts'
import { w3cCredentialSchema, w3cPresentationSchema } from '../objects/w3c-credential.ts'
import { credentialProofInfoSchema } from '../w3c/proof-details.ts'
import type { ObjectTypeName } from './handles.ts'

/** Per type name: the zod schema its values satisfy and how anoncreds-rs serialises it. */
const TYPES: Record<ObjectTypeName, { schema: z.ZodType; toJson?: (value: never) => string }> = {
  Schema: { schema: schemaSchema },
  CredentialDefinition: { schema: credentialDefinitionSchema },
  CredentialDefinitionPrivate: { schema: credentialDefinitionPrivateSchema },
  KeyCorrectnessProof: { schema: keyCorrectnessProofSchema },
  CredentialOffer: { schema: credentialOfferSchema },
  CredentialRequest: { schema: credentialRequestSchema },
  CredentialRequestMetadata: { schema: credentialRequestMetadataSchema },
  Credential: { schema: credentialSchema },
  PresentationRequest: { schema: presentationRequestSchema, toJson: presentationRequestToJson },
  Presentation: { schema: presentationSchema },
  W3CCredential: { schema: w3cCredentialSchema },
  W3CPresentation: { schema: w3cPresentationSchema },
  CredentialProofInfo: { schema: credentialProofInfoSchema },
}

/** Parses JSON text as an object of `typeName`; throws `AnoncredsError` (code 1) naming the bad field. */
export function objectFromJson(typeName: ObjectTypeName, json: string): unknown {
  return parseObjectJson(TYPES[typeName].schema, json, typeName)
}

/**
 * Normalises an engine-built value of `typeName` through its schema (field order, `null`s,
 * sorted BTree maps), so `objectToJson` writes what anoncreds-rs writes.
 */
export function normaliseObject(typeName: ObjectTypeName, value: unknown): unknown {
  return parseObjectValue(TYPES[typeName].schema, value, typeName)
}

/**
 * The JSON anoncreds-rs writes for the value: struct fields in declaration order, `Option`s as
 * `null` or omitted as serde does, big integers as decimal strings; presentation requests with
 * sorted keys (they go through `serde_json::Value`). HashMap members keep the order they were
 * read or built in (anoncreds-rs' own order is random).
 */
export function objectToJson(typeName: ObjectTypeName, value: unknown): string {
  const toJson = TYPES[typeName].toJson as ((v: unknown) => string) | undefined
  return toJson ? toJson(value) : JSON.stringify(value)
}
