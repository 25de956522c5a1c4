import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// Registration must be visible to a fresh ESM `import { anoncreds } from
// '@hyperledger/anoncreds-shared'` (what @credo-ts/anoncreds does). Module caching inside vitest
// would hide the problem, so each case runs in a child `node --import tsx` process.

const REGISTER = fileURLToPath(new URL('../../src/anoncreds/lib/register-node.ts', import.meta.url))
const SHARED_DIR = fileURLToPath(new URL('../..', import.meta.url))

function runModule(code: string): unknown {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: SHARED_DIR,
    encoding: 'utf8',
  })
  return JSON.parse(out.trim().split('\n').pop() as string)
}

describe('Node registration (lib/register-node.ts)', () => {
  it('a later ESM named import of anoncreds sees the engine; the api classes work on it', () => {
    const result = runModule(`
      import ${JSON.stringify(REGISTER)}
      import { anoncreds, Schema, AnoncredsError } from '@hyperledger/anoncreds-shared'
      const schema = Schema.create({ name: 'n', version: '1', issuerId: 'did:x', attributeNames: ['a'] })
      let error
      try { anoncreds.createRevocationStatusList({}) } catch (e) { error = e }
      console.log(JSON.stringify({
        version: anoncreds.version(),
        schema: schema.toJson(),
        typeName: schema.handle.typeName(),
        isAnoncredsError: error instanceof AnoncredsError,
        message: error.message,
      }))
    `)
    expect(result).toEqual({
      version: 'parley-anoncreds-ts/0.1.0',
      schema: { name: 'n', version: '1', attrNames: ['a'], issuerId: 'did:x' },
      typeName: 'Schema',
      isAnoncredsError: true,
      message: 'revocation not supported yet',
    })
  }, 60_000)

  it('importing it twice keeps one engine', () => {
    const result = runModule(`
      const a = await import(${JSON.stringify(REGISTER)})
      const b = await import(${JSON.stringify(`${REGISTER}?again`)})
      const { anoncreds } = await import('@hyperledger/anoncreds-shared')
      console.log(JSON.stringify({ same: a.anoncredsEngine === b.anoncredsEngine && anoncreds === a.anoncredsEngine }))
    `)
    expect(result).toEqual({ same: true })
  }, 60_000)

  it('(control) registering after the ESM import leaves the binding undefined — why the order matters', () => {
    const result = runModule(`
      import { anoncreds } from '@hyperledger/anoncreds-shared'
      await import(${JSON.stringify(REGISTER)})
      console.log(JSON.stringify({ type: typeof anoncreds }))
    `)
    expect(result).toEqual({ type: 'undefined' })
  }, 60_000)

  it('the anoncreds-shared API classes Credo uses run a full flow on the engine (legacy and W3C)', () => {
    const result = runModule(`
import ${JSON.stringify(REGISTER)}
import { Schema, CredentialDefinition, CredentialOffer, CredentialRequest, Credential, LinkSecret, Presentation, PresentationRequest, W3cCredential, W3cPresentation, anoncreds } from '@hyperledger/anoncreds-shared'
const schema = Schema.create({ name: 'person', version: '1.0', issuerId: 'did:ex:i', attributeNames: ['name', 'age'] })
const { credentialDefinition, credentialDefinitionPrivate, keyCorrectnessProof } = CredentialDefinition.create({ schemaId: 'did:ex:i/s', schema, issuerId: 'did:ex:i', tag: 't', signatureType: 'CL', supportRevocation: false })
const offer = CredentialOffer.create({ schemaId: 'did:ex:i/s', credentialDefinitionId: 'did:ex:i/cd', keyCorrectnessProof: keyCorrectnessProof.toJson() })
const linkSecret = LinkSecret.create()
const { credentialRequest, credentialRequestMetadata } = CredentialRequest.create({ entropy: anoncreds.generateNonce(), credentialDefinition: credentialDefinition.toJson(), credentialOffer: offer.toJson(), linkSecret, linkSecretId: 'ls' })
const credential = Credential.create({ credentialDefinition: credentialDefinition.toJson(), credentialDefinitionPrivate: credentialDefinitionPrivate.toJson(), credentialOffer: offer.toJson(), credentialRequest: credentialRequest.toJson(), attributeRawValues: { name: 'Alex', age: '28' } })
credential.process({ credentialRequestMetadata: credentialRequestMetadata.toJson(), linkSecret, credentialDefinition: credentialDefinition.toJson() })
const w3c = W3cCredential.fromLegacy({ credential, issuerId: 'did:ex:i' })
const w3cJson = w3c.toJson()
const w3cAgain = W3cCredential.fromJson(w3cJson)
const info = { schemaId: w3cAgain.schemaId, credDefId: w3cAgain.credentialDefinitionId, revRegId: w3cAgain.revocationRegistryId, index: w3cAgain.revocationRegistryIndex, ts: w3cAgain.timestamp }
const legacy = w3cAgain.toLegacy()
const nonce = anoncreds.generateNonce()
const presReq = { nonce, name: 'p', version: '1', requested_attributes: { a: { name: 'name' } }, requested_predicates: { b: { name: 'age', p_type: '>=', p_value: 18 } } }
const presentation = Presentation.create({ presentationRequest: presReq, credentials: [{ credential: legacy.toJson() }], credentialsProve: [{ entryIndex: 0, referent: 'a', isPredicate: false, reveal: true }, { entryIndex: 0, referent: 'b', isPredicate: true, reveal: false }], selfAttest: {}, linkSecret, schemas: { 'did:ex:i/s': schema.toJson() }, credentialDefinitions: { 'did:ex:i/cd': credentialDefinition.toJson() } })
const ok = presentation.verify({ presentationRequest: presReq, schemas: { 'did:ex:i/s': schema.toJson() }, credentialDefinitions: { 'did:ex:i/cd': credentialDefinition.toJson() } })
const w3cPres = W3cPresentation.create({ presentationRequest: presReq, credentials: [{ credential: w3cJson }], credentialsProve: [{ entryIndex: 0, referent: 'a', isPredicate: false, reveal: true }, { entryIndex: 0, referent: 'b', isPredicate: true, reveal: false }], linkSecret, schemas: { 'did:ex:i/s': schema.toJson() }, credentialDefinitions: { 'did:ex:i/cd': credentialDefinition.toJson() } })
const w3cOk = w3cPres.verify({ presentationRequest: presReq, schemas: { 'did:ex:i/s': schema.toJson() }, credentialDefinitions: { 'did:ex:i/cd': credentialDefinition.toJson() } })
console.log(JSON.stringify({ ok, w3cOk, info, revealed: presentation.toJson().requested_proof.revealed_attrs.a.raw }))
    `)
    expect(result).toEqual({
      ok: true,
      w3cOk: true,
      info: { schemaId: 'did:ex:i/s', credDefId: 'did:ex:i/cd', revRegId: null },
      revealed: 'Alex',
    })
  }, 120_000)
})
