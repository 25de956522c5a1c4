import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ENGINE_VERSION, createAnoncredsEngine } from '../../src/anoncreds/lib/engine.ts'
import { HandleTable } from '../../src/anoncreds/lib/handles.ts'
import { VECTORS_DIR } from './support/vectors.ts'

const VECTORS = `${VECTORS_DIR}/`
const vector = (name: string) => readFileSync(VECTORS + name, 'utf8')
const field = (name: string, key: string) => JSON.stringify(JSON.parse(vector(name))[key])

function thrown(fn: () => unknown): { code?: number; message?: string } {
  try {
    fn()
  } catch (error) {
    return error as { code: number; message: string }
  }
  throw new Error('expected a throw')
}

describe('handle table', () => {
  it('stores, types, frees; wrong type or freed handle is an Input error', () => {
    const table = new HandleTable()
    const a = table.put('Schema', { x: 1 })
    const b = table.put('Credential', { y: 2 })
    expect(a.handle).not.toBe(b.handle)
    expect(table.get(a, 'Schema')).toEqual({ x: 1 })
    expect(thrown(() => table.get(a, 'Credential'))).toMatchObject({
      code: 1,
      message: 'Invalid object type: expected Credential, found Schema',
    })
    table.free(a)
    expect(thrown(() => table.get(a, 'Schema')).code).toBe(1)
    expect(table.size).toBe(1)
    table.free(a) // freeing twice is a no-op
  })
})

describe('Anoncreds engine: JSON objects, attributes, errors', () => {
  const engine = createAnoncredsEngine()

  it('version, nonce, link secret', () => {
    expect(engine.version()).toBe(ENGINE_VERSION)
    const nonces = new Set(Array.from({ length: 20 }, () => engine.generateNonce()))
    for (const n of nonces) {
      expect(n).toMatch(/^[0-9]+$/)
      expect(BigInt(n) < 1n << 80n).toBe(true)
    }
    expect(nonces.size).toBe(20)
    expect(BigInt(engine.createLinkSecret()) < 1n << 256n).toBe(true)
  })

  it('every *FromJson -> getJson returns the vector JSON and the anoncreds-rs type name', () => {
    const cases: [keyof typeof engine, string, string][] = [
      ['schemaFromJson', vector('anoncreds-schema.json'), 'Schema'],
      ['credentialDefinitionFromJson', field('anoncreds-credential-definition.json', 'credentialDefinition'), 'CredentialDefinition'],
      [
        'credentialDefinitionPrivateFromJson',
        field('anoncreds-credential-definition.json', 'credentialDefinitionPrivate'),
        'CredentialDefinitionPrivate',
      ],
      ['keyCorrectnessProofFromJson', field('anoncreds-credential-definition.json', 'keyCorrectnessProof'), 'KeyCorrectnessProof'],
      ['credentialOfferFromJson', vector('anoncreds-credential-offer.json'), 'CredentialOffer'],
      ['credentialRequestFromJson', field('anoncreds-credential-request.json', 'credentialRequest'), 'CredentialRequest'],
      [
        'credentialRequestMetadataFromJson',
        field('anoncreds-credential-request.json', 'credentialRequestMetadata'),
        'CredentialRequestMetadata',
      ],
      ['credentialFromJson', vector('anoncreds-legacy-credential.json'), 'Credential'],
      ['presentationRequestFromJson', vector('anoncreds-presentation-request.json'), 'PresentationRequest'],
      ['w3cCredentialFromJson', vector('w3c-credential-anoncreds.json'), 'W3CCredential'],
      ['w3cPresentationFromJson', vector('w3c-presentation-anoncreds.json'), 'W3CPresentation'],
    ]
    for (const [fn, json, typeName] of cases) {
      const handle = (engine[fn] as (o: { json: string }) => { handle: number })({ json })
      expect(engine.getTypeName({ objectHandle: handle as never })).toBe(typeName)
      expect(engine.getJson({ objectHandle: handle as never })).toBe(JSON.stringify(JSON.parse(json)))
      engine.objectFree({ objectHandle: handle as never })
      expect(thrown(() => engine.getJson({ objectHandle: handle as never })).code).toBe(1)
    }
  })

  it('credentialGetAttribute, W3C proof details and attributes', () => {
    const credential = engine.credentialFromJson({ json: vector('anoncreds-legacy-credential.json') })
    expect(engine.credentialGetAttribute({ objectHandle: credential, name: 'schema_id' })).toBe(
      JSON.parse(vector('anoncreds-legacy-credential.json')).schema_id,
    )
    expect(engine.credentialGetAttribute({ objectHandle: credential, name: 'rev_reg_index' })).toBe('9')
    expect(thrown(() => engine.credentialGetAttribute({ objectHandle: credential, name: 'nope' }))).toMatchObject({
      code: 1,
      message: 'Unsupported attribute: nope',
    })
    // wrong handle type
    const schema = engine.schemaFromJson({ json: vector('anoncreds-schema.json') })
    expect(thrown(() => engine.credentialGetAttribute({ objectHandle: schema, name: 'schema_id' })).code).toBe(1)

    // a W3C credential without revocation data (the vector one carries revocation, not supported yet)
    const stripped = JSON.parse(vector('anoncreds-legacy-credential.json'))
    Object.assign(stripped, { rev_reg_id: null, rev_reg: null, witness: null })
    stripped.signature.r_credential = null
    const legacy = engine.credentialFromJson({ json: JSON.stringify(stripped) })
    const w3c = engine.credentialToW3c({ objectHandle: legacy, issuerId: 'did:key:z6MkwXG2WjeQnNxSoynSGYU8V9j3QzP3JSqhdmkHc6SaVWoT' })
    expect(engine.getTypeName({ objectHandle: w3c })).toBe('W3CCredential')
    const details = engine.w3cCredentialGetIntegrityProofDetails({ objectHandle: w3c })
    expect(engine.getTypeName({ objectHandle: details })).toBe('CredentialProofInfo')
    expect(engine.w3cCredentialProofGetAttribute({ objectHandle: details, name: 'cred_def_id' })).toBe(stripped.cred_def_id)
    expect(engine.w3cCredentialProofGetAttribute({ objectHandle: details, name: 'rev_reg_index' })).toBeNull()
    const back = engine.credentialFromW3c({ objectHandle: w3c })
    expect(JSON.parse(engine.getJson({ objectHandle: back }))).toEqual(stripped)
    // the vector W3C credential carries revocation data
    const vectorW3c = engine.w3cCredentialFromJson({ json: vector('w3c-credential-anoncreds.json') })
    expect(thrown(() => engine.credentialFromW3c({ objectHandle: vectorW3c })).message).toBe('revocation not supported yet')
  })

  it('encodes attributes like anoncreds-rs', () => {
    expect(engine.encodeCredentialAttributes({ attributeRawValues: ['28', 'male', '-5', '2147483648'] })).toEqual([
      '28',
      '5944657099558967239210949258394887428692050081607692519917050011144233115103',
      '-5',
      expect.stringMatching(/^[0-9]{60,}$/),
    ])
  })

  it('revocation functions throw "revocation not supported yet"; errors are remembered', () => {
    const error = thrown(() => engine.createRevocationStatusList({} as never))
    expect(error.message).toBe('revocation not supported yet')
    expect(JSON.parse(engine.getCurrentError())).toEqual({ code: error.code, message: 'revocation not supported yet' })
    expect(thrown(() => engine.revocationRegistryDefinitionFromJson({ json: '{}' })).message).toBe('revocation not supported yet')
    const schema = engine.createSchema({ name: 's', version: '1', issuerId: 'did:x', attributeNames: ['a'] })
    expect(
      thrown(() =>
        engine.createCredentialDefinition({
          schemaId: 's',
          schema,
          tag: 't',
          issuerId: 'did:x',
          signatureType: 'CL',
          supportRevocation: true,
        }),
      ).message,
    ).toBe('revocation not supported yet')
    expect(
      thrown(() =>
        engine.createCredentialDefinition({
          schemaId: 's',
          schema,
          tag: 't',
          issuerId: 'did:x',
          signatureType: 'XX',
          supportRevocation: false,
        }),
      ).code,
    ).toBe(1)
  })
})

describe('every *FromJson refuses malformed input with an AnoncredsError, never a crash', () => {
  const engine = createAnoncredsEngine()
  const fromJson = Object.keys(engine).filter((name) => name.endsWith('FromJson')) as (keyof typeof engine)[]
  const garbage = ['', 'not json', '{', 'null', '[]', '42', '"text"', '{}', '{"unexpected":true}']

  it('covers the interface', () => {
    expect(fromJson.length).toBeGreaterThanOrEqual(15)
  })

  for (const name of fromJson) {
    it(name, () => {
      for (const json of garbage) {
        const error = thrown(() => (engine[name] as (o: { json: string }) => unknown)({ json }))
        expect(error, `${name}(${JSON.stringify(json)})`).toBeInstanceOf(Error)
        expect(error.code, `${name}(${JSON.stringify(json)})`).toBeTypeOf('number')
        expect(error.message?.length, `${name}(${JSON.stringify(json)})`).toBeGreaterThan(0)
      }
    })
  }
})
