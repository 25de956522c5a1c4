/**
 * Parley's AnonCreds engine inside workerd: the edge presents and verifies a credential issued
 * by the same engine in Node (global setup), through the `Anoncreds` interface Credo uses.
 */
import { inject, describe, expect, it } from 'vitest'
import { createAnoncredsEngine } from '../../shared/src/anoncreds/lib/engine.ts'
import { FIXTURE_ATTRIBUTES, fixturePresentations } from '../../shared/test/anoncreds/support/fixture.ts'

describe('AnonCreds engine in workerd', () => {
  const engine = createAnoncredsEngine()
  const { present, verify } = fixturePresentations(engine, inject('anoncredsFixture'))

  it('creates a presentation with a revealed attribute and a >= predicate and verifies it', () => {
    const made = present(engine.generateNonce(), 18)
    expect(verify(made)).toBe(true)
    const revealed = JSON.parse(engine.getJson({ objectHandle: made.presentation })).requested_proof.revealed_attrs.name
    expect(revealed.raw).toBe(FIXTURE_ATTRIBUTES.name)
  })

  it('refuses the presentation against a request with another nonce', () => {
    const { presentation } = present(engine.generateNonce(), 18)
    const { presentationRequest: other } = present(engine.generateNonce(), 18)
    expect(verify({ presentation, presentationRequest: other })).toBe(false)
  })

  it('refuses to prove a predicate that does not hold', () => {
    expect(() => present(engine.generateNonce(), 30)).toThrow()
  })
})
