import { z } from 'zod'
import { parseObjectJson } from './parse.ts'
import { identifier, skipNone } from './primitives.ts'

/** A `@context` entry: a URI or a JSON object. */
export const w3cContextSchema = z.union([z.string(), z.record(z.string(), z.unknown())])

/** A credentialSubject value (`CredentialAttributeValue`): string, i32 number or boolean (predicate). */
export const w3cAttributeValueSchema = z.union([z.string(), z.number().int(), z.boolean()])

/**
 * AnonCreds Data Integrity proof (`src/data_types/w3c/proof.rs`): `{ cryptosuite: 'anoncreds-2023',
 * type: 'DataIntegrityProof', proofPurpose, verificationMethod, proofValue, challenge? }`;
 * `proofValue` is `u` + base64url(msgpack), decoded by `w3c/proof-value.ts`.
 */
export const dataIntegrityProofSchema = z.object({
  cryptosuite: z.literal('anoncreds-2023'),
  type: z.literal('DataIntegrityProof'),
  proofPurpose: z.enum(['assertionMethod', 'authentication']),
  verificationMethod: z.string(),
  proofValue: z.string().regex(/^u[A-Za-z0-9_-]*$/, 'expected multibase base64url (u...)'),
  challenge: skipNone(z.string()),
})
/** An AnonCreds Data Integrity proof. */
export type DataIntegrityProof = z.output<typeof dataIntegrityProofSchema>

/**
 * A credential proof: an AnonCreds Data Integrity proof, or any other proof kept verbatim
 * (untagged `CredentialProof`, e.g. an eddsa proof added later).
 */
export const credentialProofSchema = z.union([dataIntegrityProofSchema, z.record(z.string(), z.unknown())])

/**
 * W3C credential (`src/data_types/w3c/credential.rs`), field order: `@context`, `type`, `issuer`,
 * `credentialSubject`, `proof` (one or many), `id?`, `issuanceDate?`, `validFrom?`.
 */
export const w3cCredentialSchema = z.object({
  '@context': z.array(w3cContextSchema).min(1, 'expected at least one context'),
  type: z.array(z.string()).refine((t) => t.includes('VerifiableCredential'), 'must include VerifiableCredential'),
  issuer: identifier,
  credentialSubject: z
    .record(z.string(), w3cAttributeValueSchema)
    .refine((s) => Object.keys(s).length > 0, 'CredentialAttributes validation failed: empty list has been passed'),
  proof: z.union([z.array(credentialProofSchema), credentialProofSchema]),
  id: skipNone(z.string()),
  issuanceDate: skipNone(z.string()),
  validFrom: skipNone(z.string()),
})
/** A W3C credential with an AnonCreds proof. */
export type W3cCredential = z.output<typeof w3cCredentialSchema>

/**
 * W3C presentation (`src/data_types/w3c/presentation.rs`): `{ @context, type,
 * verifiableCredential, proof }`, the proof with purpose `authentication` and the request nonce
 * as `challenge`.
 */
export const w3cPresentationSchema = z.object({
  '@context': z.array(w3cContextSchema).min(1, 'expected at least one context'),
  type: z.array(z.string()).refine((t) => t.includes('VerifiablePresentation'), 'must include VerifiablePresentation'),
  verifiableCredential: z.array(w3cCredentialSchema),
  proof: dataIntegrityProofSchema,
})
/** A W3C presentation with AnonCreds proofs. */
export type W3cPresentation = z.output<typeof w3cPresentationSchema>

/** Parses a W3C credential; throws `AnoncredsError` (code 1) naming the bad field. */
export function w3cCredentialFromJson(json: string): W3cCredential {
  return parseObjectJson(w3cCredentialSchema, json, 'W3CCredential')
}

/** Parses a W3C presentation; throws `AnoncredsError` (code 1) naming the bad field. */
export function w3cPresentationFromJson(json: string): W3cPresentation {
  return parseObjectJson(w3cPresentationSchema, json, 'W3CPresentation')
}

/** The first AnonCreds (`anoncreds-2023`) proof of a W3C credential, or undefined. */
export function anoncredsProofOf(credential: W3cCredential): DataIntegrityProof | undefined {
  const proofs = Array.isArray(credential.proof) ? credential.proof : [credential.proof]
  return proofs.find((p): p is DataIntegrityProof => (p as { cryptosuite?: unknown }).cryptosuite === 'anoncreds-2023')
}
