import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { objectFromJson, objectToJson } from '../../src/anoncreds/lib/object-types.ts'
import type { ObjectTypeName } from '../../src/anoncreds/lib/handles.ts'
import { presentationRequestFromJson, presentationRequestToJson } from '../../src/anoncreds/objects/presentation-request.ts'
import { parseQuery, queryToJson } from '../../src/anoncreds/objects/query.ts'
import { VECTORS_DIR } from './support/vectors.ts'

const VECTORS = `${VECTORS_DIR}/`
const read = (name: string) => JSON.parse(readFileSync(VECTORS + name, 'utf8')) as Record<string, unknown>

/** Every AnonCreds object in the vectors, with the handle type it parses as. */
const CASES: [string, ObjectTypeName, unknown][] = [
  ['schema', 'Schema', read('anoncreds-schema.json')],
  ['credential definition', 'CredentialDefinition', read('anoncreds-credential-definition.json').credentialDefinition],
  [
    'credential definition private',
    'CredentialDefinitionPrivate',
    read('anoncreds-credential-definition.json').credentialDefinitionPrivate,
  ],
  ['key correctness proof', 'KeyCorrectnessProof', read('anoncreds-credential-definition.json').keyCorrectnessProof],
  ['credential offer', 'CredentialOffer', read('anoncreds-credential-offer.json')],
  ['credential request', 'CredentialRequest', read('anoncreds-credential-request.json').credentialRequest],
  ['credential request metadata', 'CredentialRequestMetadata', read('anoncreds-credential-request.json').credentialRequestMetadata],
  ['legacy credential', 'Credential', read('anoncreds-legacy-credential.json')],
  ['presentation request', 'PresentationRequest', read('anoncreds-presentation-request.json')],
  ['W3C credential', 'W3CCredential', read('w3c-credential-anoncreds.json')],
  ['W3C credential (+ eddsa proof)', 'W3CCredential', read('w3c-credential-anoncreds-eddsa.json')],
  ['W3C v2 credential', 'W3CCredential', read('w3c-v2-credential-anoncreds.json')],
  ['W3C presentation', 'W3CPresentation', read('w3c-presentation-anoncreds.json')],
  ['DI issue credential (anoncredsvc-2023 proof kept verbatim)', 'W3CCredential', read('aries-issue-credential-di-issue.json').credential],
  [
    'blinded link secret inside a DI request',
    'CredentialRequest',
    (read('aries-issue-credential-di-request.json').binding_proof as { anoncreds_link_secret: unknown }).anoncreds_link_secret,
  ],
  [
    'key correctness proof inside a DI offer',
    'KeyCorrectnessProof',
    (read('aries-issue-credential-di-offer.json').binding_method as { anoncreds_link_secret: { key_correctness_proof: unknown } })
      .anoncreds_link_secret.key_correctness_proof,
  ],
]

describe('AnonCreds objects round-trip the anoncreds-rs vectors', () => {
  for (const [label, typeName, value] of CASES) {
    it(`${label} (${typeName}) serialises back to the identical JSON`, () => {
      const json = JSON.stringify(value)
      const parsed = objectFromJson(typeName, json)
      expect(objectToJson(typeName, parsed)).toBe(json)
    })
  }

  it('a presentation request written by anoncreds-rs has sorted keys and `ver`; other orders are sorted', () => {
    const request = read('anoncreds-presentation-request.json')
    const shuffled = {
      version: request.version,
      requested_predicates: request.requested_predicates,
      nonce: request.nonce,
      name: request.name,
      requested_attributes: request.requested_attributes,
      non_revoked: request.non_revoked,
    }
    expect(presentationRequestToJson(presentationRequestFromJson(JSON.stringify(shuffled)))).toBe(JSON.stringify(request))
  })

  it('fills anoncreds-rs defaults: null options, ver 1.0, numeric nonce as string', () => {
    const request = presentationRequestFromJson(
      JSON.stringify({ nonce: 1234, name: 'n', version: '1', requested_attributes: { a: { name: 'x' } } }),
    )
    expect(presentationRequestToJson(request)).toBe(
      '{"name":"n","non_revoked":null,"nonce":"1234","requested_attributes":{"a":{"name":"x","non_revoked":null,"restrictions":null}},"requested_predicates":{},"ver":"1.0","version":"1"}',
    )
    const credential = read('anoncreds-legacy-credential.json')
    const { rev_reg_id: _a, rev_reg: _b, witness: _c, ...rest } = credential
    const sig = { ...(rest.signature as object), r_credential: undefined }
    const out = JSON.parse(objectToJson('Credential', objectFromJson('Credential', JSON.stringify({ ...rest, signature: sig }))))
    expect(Object.keys(out)).toEqual([
      'schema_id',
      'cred_def_id',
      'rev_reg_id',
      'values',
      'signature',
      'signature_correctness_proof',
      'rev_reg',
      'witness',
    ])
    expect(out.rev_reg_id).toBeNull()
    expect(out.signature.r_credential).toBeNull()
  })

  it('BTree maps come out sorted like serde writes them', () => {
    const request = structuredClone(read('anoncreds-credential-request.json').credentialRequest) as Record<string, Record<string, unknown>>
    request.blinded_ms_correctness_proof!.m_caps = { z: '1', master_secret: '2' }
    const out = JSON.parse(objectToJson('CredentialRequest', objectFromJson('CredentialRequest', JSON.stringify(request))))
    expect(Object.keys(out.blinded_ms_correctness_proof.m_caps)).toEqual(['master_secret', 'z'])
  })
})

describe('malformed JSON is an AnoncredsError naming the field', () => {
  const bad: [ObjectTypeName, string, RegExp][] = [
    ['Schema', '{"name":"a","version":"1","attrNames":[],"issuerId":"did:x"}', /Invalid Schema: attrNames/],
    ['Schema', '{"name":"a","version":"1","attrNames":["a","a"],"issuerId":"did:x"}', /unique/],
    ['Schema', 'not json', /Invalid Schema JSON/],
    ['CredentialDefinition', '{"schemaId":"s","type":"XX","tag":"t","value":{},"issuerId":"i"}', /Invalid CredentialDefinition: type/],
    ['CredentialOffer', JSON.stringify({ ...read('anoncreds-credential-offer.json'), nonce: '12a' }), /Invalid CredentialOffer: nonce/],
    [
      'CredentialRequest',
      JSON.stringify({ ...(read('anoncreds-credential-request.json').credentialRequest as object), entropy: undefined }),
      /Invalid CredentialRequest: entropy: Entropy or prover did/,
    ],
    [
      'Credential',
      JSON.stringify({ ...read('anoncreds-legacy-credential.json'), values: { age: { raw: '1' } } }),
      /Invalid Credential: values\.age\.encoded/,
    ],
    [
      'PresentationRequest',
      '{"nonce":"1","name":"n","version":"1","requested_attributes":{"a":{"name":"x","names":["y"]}}}',
      /requested_attributes\.a\.name/,
    ],
    [
      'PresentationRequest',
      '{"nonce":"1","name":"n","version":"1","requested_attributes":{},"requested_predicates":{}}',
      /both `requested_attributes` and `requested_predicates` are empty/,
    ],
    [
      'PresentationRequest',
      '{"nonce":"1","name":"n","version":"1","requested_predicates":{"p":{"name":"age","p_type":"=>","p_value":1}}}',
      /requested_predicates\.p\.p_type/,
    ],
    [
      'PresentationRequest',
      '{"nonce":"1","name":"n","version":"1","requested_attributes":{"a":{"name":"x","restrictions":{"x":{"$xor":"1"}}}}}',
      /requested_attributes\.a\.restrictions: Unknown operator/,
    ],
    [
      'PresentationRequest',
      '{"nonce":"1","name":"n","version":"1","ver":"3.0","requested_attributes":{"a":{"name":"x"}}}',
      /Invalid PresentationRequest: ver/,
    ],
    ['Presentation', '{"proof":{},"requested_proof":{},"identifiers":[]}', /Invalid Presentation: proof\.proofs/],
    [
      'W3CCredential',
      JSON.stringify({ ...read('w3c-credential-anoncreds.json'), credentialSubject: {} }),
      /Invalid W3CCredential: credentialSubject/,
    ],
    [
      'W3CPresentation',
      JSON.stringify({ ...read('w3c-presentation-anoncreds.json'), proof: { cryptosuite: 'anoncreds-2023' } }),
      /Invalid W3CPresentation: proof\./,
    ],
  ]
  for (const [typeName, json, message] of bad) {
    it(`${typeName}: ${message}`, () => {
      let error: unknown
      try {
        objectFromJson(typeName, json)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(Error)
      expect((error as { code: number }).code).toBe(1)
      expect((error as Error).message).toMatch(message)
    })
  }
})

describe('restriction queries', () => {
  it('parses $or / $and / $not / $in / $neq and implicit $and', () => {
    expect(parseQuery({ $or: [{ cred_def_id: 'a' }, { schema_name: { $neq: 'b' } }] })).toEqual({
      op: 'or',
      operators: [
        { op: 'eq', name: 'cred_def_id', value: 'a' },
        { op: 'neq', name: 'schema_name', value: 'b' },
      ],
    })
    expect(parseQuery({ issuer_id: 'x', schema_id: { $in: ['s1', 's2'] } })).toEqual({
      op: 'and',
      operators: [
        { op: 'eq', name: 'issuer_id', value: 'x' },
        { op: 'in', name: 'schema_id', values: ['s1', 's2'] },
      ],
    })
    expect(parseQuery({ $not: { $and: [] } })).toEqual({ op: 'not', operator: { op: 'and', operators: [] } })
  })

  it('normalises like anoncreds-rs writes them back: legacy arrays become $or, implicit $and sorted, empty lists vanish', () => {
    const norm = (q: unknown) => queryToJson(parseQuery(q))
    expect(norm([{ cred_def_id: 'a', schema_id: null }, { issuer_did: 'b' }, {}])).toEqual({
      $or: [{ cred_def_id: 'a' }, { issuer_did: 'b' }],
    })
    expect(norm({ schema_id: 's', issuer_id: 'i' })).toEqual({ $and: [{ issuer_id: 'i' }, { schema_id: 's' }] })
    expect(norm({ $or: [], cred_def_id: 'c' })).toEqual({ cred_def_id: 'c' })
    expect(norm([])).toEqual({})
    expect(norm({ attr: { $like: 'x%' } })).toEqual({ attr: { $like: 'x%' } })
    expect(() => parseQuery('x')).toThrow('Restriction must be either object or array')
    const request = presentationRequestFromJson(
      JSON.stringify({
        nonce: '1',
        name: 'n',
        version: '1',
        requested_attributes: { a: { name: 'x', restrictions: [{ cred_def_id: 'c' }] } },
      }),
    )
    expect(JSON.parse(presentationRequestToJson(request)).requested_attributes.a.restrictions).toEqual({ $or: [{ cred_def_id: 'c' }] })
  })
})
