import { readFileSync } from 'node:fs'
import type { ObjectHandle } from '@hyperledger/anoncreds-shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAnoncredsEngine } from '../../src/anoncreds/lib/engine.ts'
import { VECTORS_DIR } from './support/vectors.ts'

// Full flows through the `Anoncreds` interface, as Credo drives it: schema -> cred def -> offer
// -> request -> credential -> process -> presentation -> verify, legacy and W3C.

const engine = createAnoncredsEngine()
const ISSUER = 'did:example:issuer'
const SCHEMA_ID = 'did:example:issuer/schema/1'
const CRED_DEF_ID = 'did:example:issuer/creddef/1'
const json = (h: ObjectHandle) => JSON.parse(engine.getJson({ objectHandle: h }))

type Setup = {
  schema: ObjectHandle
  credDef: ObjectHandle
  credDefPrivate: ObjectHandle
  kcp: ObjectHandle
  linkSecret: string
}
let setup: Setup
let otherCredDef: ObjectHandle

const RAW = { name: 'Alex', 'First Name': 'Alexander', age: '28', height: '175', sex: 'male' }

function request(nonce: string, extra: object = {}) {
  return engine.presentationRequestFromJson({
    json: JSON.stringify({
      nonce,
      name: 'proof',
      version: '1.0',
      requested_attributes: {
        name_ref: { name: 'name', restrictions: { $or: [{ cred_def_id: CRED_DEF_ID }, { issuer_id: 'did:other' }] } },
        group_ref: { names: ['height', 'sex'], restrictions: { schema_name: 'person' } },
        hidden_ref: { name: 'firstname' },
        self_ref: { name: 'nickname' },
      },
      requested_predicates: { age_ref: { name: 'age', p_type: '>=', p_value: 18, restrictions: { $and: [{ schema_id: SCHEMA_ID }] } } },
      ...extra,
    }),
  })
}

const prove = [
  { entryIndex: 0, referent: 'name_ref', isPredicate: false, reveal: true },
  { entryIndex: 0, referent: 'group_ref', isPredicate: false, reveal: true },
  { entryIndex: 0, referent: 'hidden_ref', isPredicate: false, reveal: false },
  { entryIndex: 0, referent: 'age_ref', isPredicate: true, reveal: false },
]

function issue(w3c: boolean) {
  const offer = engine.createCredentialOffer({ schemaId: SCHEMA_ID, credentialDefinitionId: CRED_DEF_ID, keyCorrectnessProof: setup.kcp })
  const { credentialRequest, credentialRequestMetadata } = engine.createCredentialRequest({
    entropy: 'holder-entropy',
    credentialDefinition: setup.credDef,
    linkSecret: setup.linkSecret,
    linkSecretId: 'default',
    credentialOffer: offer,
  })
  const common = {
    credentialDefinition: setup.credDef,
    credentialDefinitionPrivate: setup.credDefPrivate,
    credentialOffer: offer,
    credentialRequest,
    attributeRawValues: RAW,
  }
  if (w3c) {
    const credential = engine.createW3cCredential(common)
    return engine.processW3cCredential({
      credential,
      credentialRequestMetadata,
      linkSecret: setup.linkSecret,
      credentialDefinition: setup.credDef,
    })
  }
  const credential = engine.createCredential({
    ...common,
    attributeEncodedValues: { name: engine.encodeCredentialAttributes({ attributeRawValues: ['Alex'] })[0]! },
  })
  return engine.processCredential({
    credential,
    credentialRequestMetadata,
    linkSecret: setup.linkSecret,
    credentialDefinition: setup.credDef,
  })
}

beforeAll(() => {
  const schema = engine.createSchema({ name: 'person', version: '1.0', issuerId: ISSUER, attributeNames: Object.keys(RAW) })
  const created = engine.createCredentialDefinition({
    schemaId: SCHEMA_ID,
    schema,
    tag: 'default',
    issuerId: ISSUER,
    signatureType: 'CL',
    supportRevocation: false,
  })
  setup = {
    schema,
    credDef: created.credentialDefinition,
    credDefPrivate: created.credentialDefinitionPrivate,
    kcp: created.keyCorrectnessProof,
    linkSecret: engine.createLinkSecret(),
  }
  otherCredDef = engine.createCredentialDefinition({
    schemaId: SCHEMA_ID,
    schema,
    tag: 'other',
    issuerId: ISSUER,
    signatureType: 'CL',
    supportRevocation: false,
  }).credentialDefinition
}, 300_000)

describe('legacy AnonCreds flow through the Anoncreds interface', () => {
  let credential: ObjectHandle
  let nonce: string
  let presentation: ObjectHandle

  beforeAll(() => {
    credential = issue(false)
    nonce = engine.generateNonce()
    presentation = engine.createPresentation({
      presentationRequest: request(nonce),
      credentials: [{ credential }],
      credentialsProve: prove,
      selfAttest: { self_ref: 'Al' },
      linkSecret: setup.linkSecret,
      schemas: { [SCHEMA_ID]: setup.schema },
      credentialDefinitions: { [CRED_DEF_ID]: setup.credDef },
    })
  }, 120_000)

  const verify = (pres: ObjectHandle, req: ObjectHandle, credDef = setup.credDef) =>
    engine.verifyPresentation({
      presentation: pres,
      presentationRequest: req,
      schemas: [setup.schema],
      schemaIds: [SCHEMA_ID],
      credentialDefinitions: [credDef],
      credentialDefinitionIds: [CRED_DEF_ID],
    })

  it('issues and processes a credential with the given and the computed encodings', () => {
    const c = json(credential)
    expect(Object.keys(c)).toEqual([
      'schema_id',
      'cred_def_id',
      'rev_reg_id',
      'values',
      'signature',
      'signature_correctness_proof',
      'rev_reg',
      'witness',
    ])
    expect(c.values.age).toEqual({ raw: '28', encoded: '28' })
    expect(c.values.sex.encoded).toBe('5944657099558967239210949258394887428692050081607692519917050011144233115103')
    expect(engine.credentialGetAttribute({ objectHandle: credential, name: 'cred_def_id' })).toBe(CRED_DEF_ID)
  })

  it('builds requested_proof: revealed, group, unrevealed, self-attested, predicate; identifiers', () => {
    const p = json(presentation)
    expect(p.requested_proof.revealed_attrs.name_ref).toEqual({
      sub_proof_index: 0,
      raw: 'Alex',
      encoded: json(credential).values.name.encoded,
    })
    expect(p.requested_proof.revealed_attr_groups.group_ref.values.sex.raw).toBe('male')
    expect(p.requested_proof.unrevealed_attrs).toEqual({ hidden_ref: { sub_proof_index: 0 } })
    expect(p.requested_proof.self_attested_attrs).toEqual({ self_ref: 'Al' })
    expect(p.requested_proof.predicates).toEqual({ age_ref: { sub_proof_index: 0 } })
    expect(p.identifiers).toEqual([{ schema_id: SCHEMA_ID, cred_def_id: CRED_DEF_ID, rev_reg_id: null, timestamp: null }])
    expect(p.proof.proofs[0].primary_proof.ge_proofs[0].predicate).toEqual({ attr_name: 'age', p_type: 'GE', value: 18 })
    // JSON round trip through presentationFromJson
    const again = engine.presentationFromJson({ json: engine.getJson({ objectHandle: presentation }) })
    expect(engine.getJson({ objectHandle: again })).toBe(engine.getJson({ objectHandle: presentation }))
  })

  it('verifies', () => {
    expect(verify(presentation, request(nonce))).toBe(true)
  }, 60_000)

  it('is false for another nonce', () => {
    expect(verify(presentation, request(engine.generateNonce()))).toBe(false)
  }, 60_000)

  it('is false when a revealed value was changed (raw and encoded)', () => {
    const p = json(presentation)
    p.requested_proof.revealed_attrs.name_ref = {
      ...p.requested_proof.revealed_attrs.name_ref,
      raw: 'Bob',
      encoded: engine.encodeCredentialAttributes({ attributeRawValues: ['Bob'] })[0],
    }
    expect(verify(engine.presentationFromJson({ json: JSON.stringify(p) }), request(nonce))).toBe(false)
    // changing the encoded value in the CL proof too breaks the proof itself
    p.proof.proofs[0].primary_proof.eq_proof.revealed_attrs.name = p.requested_proof.revealed_attrs.name_ref.encoded
    expect(verify(engine.presentationFromJson({ json: JSON.stringify(p) }), request(nonce))).toBe(false)
  }, 60_000)

  it('is false when only a revealed raw value was changed (encoded value and proof untouched)', () => {
    const tampered = json(presentation)
    tampered.requested_proof.revealed_attrs.name_ref.raw = 'Bob'
    expect(verify(engine.presentationFromJson({ json: JSON.stringify(tampered) }), request(nonce))).toBe(false)
    const inGroup = json(presentation)
    inGroup.requested_proof.revealed_attr_groups.group_ref.values.sex.raw = 'female'
    expect(verify(engine.presentationFromJson({ json: JSON.stringify(inGroup) }), request(nonce))).toBe(false)
    // the same JSON untouched still verifies
    const untouched = json(presentation)
    expect(verify(engine.presentationFromJson({ json: JSON.stringify(untouched) }), request(nonce))).toBe(true)
  }, 60_000)

  it('is false against another credential definition', () => {
    expect(verify(presentation, request(nonce), otherCredDef)).toBe(false)
  }, 60_000)

  it('is false when a restriction does not hold or a referent is missing', () => {
    const strict = request(nonce, {
      requested_attributes: {
        name_ref: { name: 'name', restrictions: { issuer_id: 'did:someone-else' } },
        group_ref: { names: ['height', 'sex'] },
        hidden_ref: { name: 'firstname' },
        self_ref: { name: 'nickname' },
      },
    })
    expect(verify(presentation, strict)).toBe(false)
    const more = request(nonce, {
      requested_predicates: { age_ref: { name: 'age', p_type: '>=', p_value: 18 }, h: { name: 'height', p_type: '<', p_value: 200 } },
    })
    expect(verify(presentation, more)).toBe(false)
  }, 60_000)

  it('refuses to prove an unsatisfied predicate', () => {
    expect(() =>
      engine.createPresentation({
        presentationRequest: request(nonce, { requested_predicates: { age_ref: { name: 'age', p_type: '>=', p_value: 30 } } }),
        credentials: [{ credential }],
        credentialsProve: prove,
        selfAttest: { self_ref: 'Al' },
        linkSecret: setup.linkSecret,
        schemas: { [SCHEMA_ID]: setup.schema },
        credentialDefinitions: { [CRED_DEF_ID]: setup.credDef },
      }),
    ).toThrow()
  }, 60_000)
})

describe('W3C flow through the Anoncreds interface', () => {
  let credential: ObjectHandle
  let nonce: string
  let presentation: ObjectHandle
  const w3cProve = prove.filter((p) => p.referent !== 'hidden_ref')
  const w3cRequest = (n: string) =>
    request(n, {
      requested_attributes: {
        name_ref: { name: 'name', restrictions: { $or: [{ cred_def_id: CRED_DEF_ID }] } },
        group_ref: { names: ['height', 'sex'], restrictions: { schema_name: 'person' } },
      },
    })

  beforeAll(() => {
    credential = issue(true)
    nonce = engine.generateNonce()
    presentation = engine.createW3cPresentation({
      presentationRequest: w3cRequest(nonce),
      credentials: [{ credential }],
      credentialsProve: w3cProve,
      linkSecret: setup.linkSecret,
      schemas: { [SCHEMA_ID]: setup.schema },
      credentialDefinitions: { [CRED_DEF_ID]: setup.credDef },
    })
  }, 120_000)

  const verify = (pres: ObjectHandle, req: ObjectHandle, credDef = setup.credDef) =>
    engine.verifyW3cPresentation({
      presentation: pres,
      presentationRequest: req,
      schemas: [setup.schema],
      schemaIds: [SCHEMA_ID],
      credentialDefinitions: [credDef],
      credentialDefinitionIds: [CRED_DEF_ID],
    })

  it('issues a W3C credential that converts to legacy and back', () => {
    const c = json(credential)
    expect(c.issuer).toBe(ISSUER)
    expect(c.credentialSubject).toEqual({ name: 'Alex', 'First Name': 'Alexander', age: 28, height: 175, sex: 'male' })
    const details = engine.w3cCredentialGetIntegrityProofDetails({ objectHandle: credential })
    expect(engine.w3cCredentialProofGetAttribute({ objectHandle: details, name: 'schema_id' })).toBe(SCHEMA_ID)
    const legacy = engine.credentialFromW3c({ objectHandle: credential })
    expect(json(legacy).values.age).toEqual({ raw: '28', encoded: '28' })
    const back = engine.credentialToW3c({ objectHandle: legacy, issuerId: ISSUER })
    expect(json(back).credentialSubject).toEqual(c.credentialSubject)
  })

  it('builds the derived credential and the presentation proof', () => {
    const p = json(presentation)
    expect(p.type).toEqual(['VerifiablePresentation'])
    expect(p.proof.challenge).toBe(nonce)
    expect(p.proof.proofPurpose).toBe('authentication')
    expect(p.verifiableCredential[0].credentialSubject).toEqual({ name: 'Alex', height: 175, sex: 'male', age: true })
    const again = engine.w3cPresentationFromJson({ json: engine.getJson({ objectHandle: presentation }) })
    expect(engine.getJson({ objectHandle: again })).toBe(engine.getJson({ objectHandle: presentation }))
  })

  it('verifies', () => {
    expect(verify(presentation, w3cRequest(nonce))).toBe(true)
  }, 60_000)

  it('is false for another nonce, a changed value, another cred def', () => {
    expect(verify(presentation, w3cRequest(engine.generateNonce()))).toBe(false)
    const p = json(presentation)
    p.verifiableCredential[0].credentialSubject.name = 'Bob'
    expect(verify(engine.w3cPresentationFromJson({ json: JSON.stringify(p) }), w3cRequest(nonce))).toBe(false)
    expect(verify(presentation, w3cRequest(nonce), otherCredDef)).toBe(false)
  }, 120_000)

  it('a legacy credential proves in a W3C presentation after credentialToW3c', () => {
    const legacy = issue(false)
    const w3c = engine.credentialToW3c({ objectHandle: legacy, issuerId: ISSUER })
    const n = engine.generateNonce()
    const pres = engine.createW3cPresentation({
      presentationRequest: w3cRequest(n),
      credentials: [{ credential: w3c }],
      credentialsProve: w3cProve,
      linkSecret: setup.linkSecret,
      schemas: { [SCHEMA_ID]: setup.schema },
      credentialDefinitions: { [CRED_DEF_ID]: setup.credDef },
    })
    expect(verify(pres, w3cRequest(n))).toBe(true)
  }, 120_000)
})

describe('processing and presenting the credential anoncreds-rs issued in the vectors (revocation parts removed)', () => {
  const VECTORS = `${VECTORS_DIR}/`
  const read = (name: string) => JSON.parse(readFileSync(VECTORS + name, 'utf8'))
  const vectorCredDef = read('anoncreds-credential-definition.json').credentialDefinition
  const { linkSecret } = read('anoncreds-link-secret.json')
  const schemaJson = read('anoncreds-schema.json')
  const legacy = read('anoncreds-legacy-credential.json')
  Object.assign(legacy, { rev_reg_id: null, rev_reg: null, witness: null })
  legacy.signature.r_credential = null
  delete vectorCredDef.value.revocation
  const vectorRequest = (nonce: string) =>
    engine.presentationRequestFromJson({
      json: JSON.stringify({
        nonce,
        name: 'pres_req_1',
        version: '0.1',
        requested_attributes: {
          attr2_referent: { names: ['name', 'height'], restrictions: { $or: [{ cred_def_id: legacy.cred_def_id }] } },
        },
        requested_predicates: { predicate1_referent: { name: 'age', p_type: '>=', p_value: 18 } },
      }),
    })
  const vProve = [
    { entryIndex: 0, referent: 'attr2_referent', isPredicate: false, reveal: true },
    { entryIndex: 0, referent: 'predicate1_referent', isPredicate: true, reveal: false },
  ]
  const metadata = read('anoncreds-credential-request.json').credentialRequestMetadata
  // The vector credential is as the issuer sent it (v = v''): process it like a holder would,
  // which checks anoncreds-rs' signature-correctness proof with our code.
  const processed = () =>
    engine.processCredential({
      credential: engine.credentialFromJson({ json: JSON.stringify(legacy) }),
      credentialRequestMetadata: engine.credentialRequestMetadataFromJson({ json: JSON.stringify(metadata) }),
      linkSecret,
      credentialDefinition: engine.credentialDefinitionFromJson({ json: JSON.stringify(vectorCredDef) }),
    })
  const ledgerLists = () => ({
    schemas: [engine.schemaFromJson({ json: JSON.stringify(schemaJson) })],
    schemaIds: [legacy.schema_id],
    credentialDefinitions: [engine.credentialDefinitionFromJson({ json: JSON.stringify(vectorCredDef) })],
    credentialDefinitionIds: [legacy.cred_def_id],
  })

  it('processCredential accepts the anoncreds-rs signature and fails with another link secret', () => {
    expect(BigInt(json(processed()).signature.p_credential.v)).toBe(
      BigInt(legacy.signature.p_credential.v) + BigInt(metadata.link_secret_blinding_data.v_prime),
    )
    expect(() =>
      engine.processCredential({
        credential: engine.credentialFromJson({ json: JSON.stringify(legacy) }),
        credentialRequestMetadata: engine.credentialRequestMetadataFromJson({ json: JSON.stringify(metadata) }),
        linkSecret: '12345',
        credentialDefinition: engine.credentialDefinitionFromJson({ json: JSON.stringify(vectorCredDef) }),
      }),
    ).toThrow()
  }, 60_000)

  it('legacy presentation from the vector credential verifies', () => {
    const nonce = engine.generateNonce()
    const lists = ledgerLists()
    const presentation = engine.createPresentation({
      presentationRequest: vectorRequest(nonce),
      credentials: [{ credential: processed() }],
      credentialsProve: vProve,
      selfAttest: {},
      linkSecret,
      schemas: { [legacy.schema_id]: lists.schemas[0]! },
      credentialDefinitions: { [legacy.cred_def_id]: lists.credentialDefinitions[0]! },
    })
    expect(json(presentation).requested_proof.revealed_attr_groups.attr2_referent.values).toEqual({
      name: legacy.values.name,
      height: legacy.values.height,
    })
    expect(engine.verifyPresentation({ presentation, presentationRequest: vectorRequest(nonce), ...lists })).toBe(true)
    expect(engine.verifyPresentation({ presentation, presentationRequest: vectorRequest(engine.generateNonce()), ...lists })).toBe(false)
  }, 60_000)

  it('W3C presentation from the vector credential (converted with credentialToW3c) verifies', () => {
    const nonce = engine.generateNonce()
    const lists = ledgerLists()
    const w3c = engine.credentialToW3c({ objectHandle: processed(), issuerId: vectorCredDef.issuerId })
    const presentation = engine.createW3cPresentation({
      presentationRequest: vectorRequest(nonce),
      credentials: [{ credential: w3c }],
      credentialsProve: vProve,
      linkSecret,
      schemas: { [legacy.schema_id]: lists.schemas[0]! },
      credentialDefinitions: { [legacy.cred_def_id]: lists.credentialDefinitions[0]! },
    })
    // same shape as the vector W3C presentation's derived credential
    expect(json(presentation).verifiableCredential[0].credentialSubject).toEqual(
      read('w3c-presentation-anoncreds.json').verifiableCredential[0].credentialSubject,
    )
    expect(engine.verifyW3cPresentation({ presentation, presentationRequest: vectorRequest(nonce), ...lists })).toBe(true)
  }, 60_000)
})
