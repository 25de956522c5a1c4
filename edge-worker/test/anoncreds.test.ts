/**
 * Parley's AnonCreds engine inside workerd: the edge presents and verifies a credential issued
 * by the same engine in Node (global setup), through the `Anoncreds` interface Credo uses.
 */
import { inject, describe, expect, it } from 'vitest'
import { createAnoncredsEngine } from '../../shared/src/anoncreds/lib/engine.ts'
import { FIXTURE_ATTRIBUTES } from './support/anoncreds-fixture.ts'

describe('AnonCreds engine in workerd', () => {
  const fixture = inject('anoncredsFixture')
  const engine = createAnoncredsEngine()
  const schema = engine.schemaFromJson({ json: fixture.schema })
  const credentialDefinition = engine.credentialDefinitionFromJson({ json: fixture.credentialDefinition })
  const credential = engine.credentialFromJson({ json: fixture.credential })

  function present(nonce: string, minimumAge: number) {
    const presentationRequest = engine.presentationRequestFromJson({
      json: JSON.stringify({
        name: 'edge check',
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

  const verify = (
    presentation: ReturnType<typeof present>['presentation'],
    presentationRequest: ReturnType<typeof present>['presentationRequest'],
  ) =>
    engine.verifyPresentation({
      presentation,
      presentationRequest,
      schemas: [schema],
      schemaIds: [fixture.schemaId],
      credentialDefinitions: [credentialDefinition],
      credentialDefinitionIds: [fixture.credentialDefinitionId],
    })

  it('creates a presentation with a revealed attribute and a >= predicate and verifies it', () => {
    const { presentation, presentationRequest } = present(engine.generateNonce(), 18)
    expect(verify(presentation, presentationRequest)).toBe(true)
    const revealed = JSON.parse(engine.getJson({ objectHandle: presentation })).requested_proof.revealed_attrs.name
    expect(revealed.raw).toBe(FIXTURE_ATTRIBUTES.name)
  })

  it('refuses the presentation against a request with another nonce', () => {
    const { presentation } = present(engine.generateNonce(), 18)
    const { presentationRequest: other } = present(engine.generateNonce(), 18)
    expect(verify(presentation, other)).toBe(false)
  })

  it('refuses to prove a predicate that does not hold', () => {
    expect(() => present(engine.generateNonce(), 30)).toThrow()
  })
})
