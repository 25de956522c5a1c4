/**
 * An AnonCreds credential issued with Parley's engine (in Node), and the presentation the tests
 * make of it: `name` revealed, `age >= minimumAge` proven. The workerd tests present and verify it
 * at the edge (the edge-worker's global setup issues it: key generation needs Node's OpenSSL safe
 * primes, seconds; workerd has only the pure-BigInt search, minutes, which the edge never needs);
 * agent-node's tests issue it under keys made from reserved safe primes.
 */
import type { CredentialKeys } from '../../../src/anoncreds/issuance/index.ts'
import { createAnoncredsEngine } from '../../../src/anoncreds/lib/engine.ts'
import { credentialKeyAttributeNames } from '../../../src/anoncreds/lib/prepared-keys.ts'

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

/**
 * Issues one credential with FIXTURE_ATTRIBUTES and processes it as its holder; under `keys`
 * when given (made for `credentialKeyAttributeNames` of the attributes), else under new keys.
 */
export function issueAnoncredsFixture(keys?: CredentialKeys): AnoncredsFixture {
  const engine = createAnoncredsEngine()
  if (keys) engine.preparedKeys.add(credentialKeyAttributeNames(Object.keys(FIXTURE_ATTRIBUTES)), keys)
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

type Engine = ReturnType<typeof createAnoncredsEngine>

/**
 * Presentations of the fixture's credential with `engine` (which may run elsewhere than the
 * issuer: the fixture is JSON): `present` reveals `name` and proves `age >= minimumAge` for a
 * request with `nonce` (throws when the predicate does not hold); `verify` checks one against a
 * request.
 */
export function fixturePresentations(engine: Engine, fixture: AnoncredsFixture) {
  const schema = engine.schemaFromJson({ json: fixture.schema })
  const credentialDefinition = engine.credentialDefinitionFromJson({ json: fixture.credentialDefinition })
  const credential = engine.credentialFromJson({ json: fixture.credential })
  const present = (nonce: string, minimumAge: number) => {
    const presentationRequest = engine.presentationRequestFromJson({
      json: JSON.stringify({
        name: 'fixture check',
        version: '1.0',
        nonce,
        requested_attributes: { name: { name: 'name', restrictions: [{ cred_def_id: fixture.credentialDefinitionId }] } },
        requested_predicates: { adult: { name: 'age', p_type: '>=', p_value: minimumAge } },
      }),
    })
    const presentation = engine.createPresentation({
      presentationRequest,
      credentials: [{ credential }],
      credentialsProve: [
        { entryIndex: 0, referent: 'name', isPredicate: false, reveal: true },
        { entryIndex: 0, referent: 'adult', isPredicate: true, reveal: true },
      ],
      selfAttest: {},
      linkSecret: fixture.linkSecret,
      schemas: { [fixture.schemaId]: schema },
      credentialDefinitions: { [fixture.credentialDefinitionId]: credentialDefinition },
    })
    return { presentation, presentationRequest }
  }
  const verify = (made: ReturnType<typeof present>) =>
    engine.verifyPresentation({
      presentation: made.presentation,
      presentationRequest: made.presentationRequest,
      schemas: [schema],
      schemaIds: [fixture.schemaId],
      credentialDefinitions: [credentialDefinition],
      credentialDefinitionIds: [fixture.credentialDefinitionId],
    })
  return { present, verify }
}
