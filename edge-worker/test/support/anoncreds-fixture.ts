/**
 * An AnonCreds credential issued (in Node, by the global setup) with Parley's engine, for the
 * workerd tests that present and verify it at the edge. Key generation needs Node's OpenSSL
 * safe primes (seconds); workerd has only the pure-BigInt search (minutes), which the edge never
 * needs: it verifies, it does not issue.
 */
import { createAnoncredsEngine } from '../../../shared/src/anoncreds/lib/engine.ts'

export interface AnoncredsFixture {
  schemaId: string
  credentialDefinitionId: string
  /** getJson outputs of the engine objects. */
  schema: string
  credentialDefinition: string
  credential: string
  linkSecret: string
}

export const FIXTURE_ATTRIBUTES = { name: 'Alice', age: '29', height: '172', sex: 'F', email: 'alice@example.org' }

/** Issues one credential with FIXTURE_ATTRIBUTES and processes it as its holder. */
export function issueAnoncredsFixture(): AnoncredsFixture {
  const engine = createAnoncredsEngine()
  const issuerId = 'did:example:parley-edge-test'
  const schemaId = `${issuerId}/schema/person/1.0`
  const credentialDefinitionId = `${issuerId}/cred-def/person`
  const schema = engine.createSchema({ name: 'person', version: '1.0', issuerId, attributeNames: Object.keys(FIXTURE_ATTRIBUTES) })
  const { credentialDefinition, credentialDefinitionPrivate, keyCorrectnessProof } = engine.createCredentialDefinition({
    schemaId,
    schema,
    tag: 'default',
    issuerId,
    signatureType: 'CL',
    supportRevocation: false,
  })
  const credentialOffer = engine.createCredentialOffer({ schemaId, credentialDefinitionId, keyCorrectnessProof })
  const linkSecret = engine.createLinkSecret()
  const { credentialRequest, credentialRequestMetadata } = engine.createCredentialRequest({
    entropy: 'edge-test-holder',
    credentialDefinition,
    linkSecret,
    linkSecretId: 'default',
    credentialOffer,
  })
  const credential = engine.createCredential({
    credentialDefinition,
    credentialDefinitionPrivate,
    credentialOffer,
    credentialRequest,
    attributeRawValues: FIXTURE_ATTRIBUTES,
  })
  const processed = engine.processCredential({ credential, credentialRequestMetadata, linkSecret, credentialDefinition })
  const json = (objectHandle: typeof schema) => engine.getJson({ objectHandle })
  return {
    schemaId,
    credentialDefinitionId,
    schema: json(schema),
    credentialDefinition: json(credentialDefinition),
    credential: json(processed),
    linkSecret,
  }
}
