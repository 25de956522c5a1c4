/**
 * Issuer keys prepared ahead (`lib/prepared-keys.ts`): the engine's synchronous
 * `createCredentialDefinition` takes keys made elsewhere for its attribute list, each once.
 * Keys here come from small safe primes (`credentialKeysFromPrimes` takes any), to stay fast.
 */
import { describe, expect, it } from 'vitest'
import { credentialKeysFromPrimes } from '../../src/anoncreds/issuance/index.ts'
import { createAnoncredsEngine, credentialKeyAttributeNames, isAnoncredsError } from '../../src/anoncreds/lib/index.ts'
import { generateSafePrime } from '../../src/anoncreds/math/index.ts'

const ISSUER = 'did:web:issuer.example'
const half = () => (generateSafePrime(256) - 1n) >> 1n

describe('prepared credential definition keys', () => {
  it('normalises the schema attribute names and appends master_secret; refuses reserved and repeated names', () => {
    expect(credentialKeyAttributeNames(['First Name', 'age'])).toEqual(['firstname', 'age', 'master_secret'])
    for (const names of [['master_secret'], ['Age', 'age']]) {
      let thrown: unknown
      try {
        credentialKeyAttributeNames(names)
      } catch (error) {
        thrown = error
      }
      expect(isAnoncredsError(thrown)).toBe(true)
    }
  })

  it('createCredentialDefinition takes the keys prepared for its attribute list, once', () => {
    const engine = createAnoncredsEngine()
    const schema = engine.createSchema({ name: 'person', version: '1.0', issuerId: ISSUER, attributeNames: ['First Name', 'age'] })
    const names = credentialKeyAttributeNames(['First Name', 'age'])
    const p = half()
    let q = half()
    while (p === q) q = half()
    const keys = credentialKeysFromPrimes(names, p, q)
    engine.preparedKeys.add(['other', 'master_secret'], credentialKeysFromPrimes(['other', 'master_secret'], p, q))
    engine.preparedKeys.add(names, keys)

    const created = engine.createCredentialDefinition({
      schemaId: `${ISSUER}/schema`,
      schema,
      tag: 'default',
      issuerId: ISSUER,
      signatureType: 'CL',
      supportRevocation: false,
    })
    const json = (handle: Parameters<typeof engine.getJson>[0]['objectHandle']) => JSON.parse(engine.getJson({ objectHandle: handle }))
    expect(json(created.credentialDefinition).value.primary).toEqual(keys.primary)
    expect(json(created.credentialDefinitionPrivate).value.p_key).toEqual(keys.privateKey)
    expect(json(created.keyCorrectnessProof)).toEqual(keys.keyCorrectnessProof)
    // used once; the keys of the other attribute list are still waiting for theirs
    expect(engine.preparedKeys.take(names)).toBeUndefined()
    expect(engine.preparedKeys.take(['other', 'master_secret'])).toBeDefined()
  })
})
