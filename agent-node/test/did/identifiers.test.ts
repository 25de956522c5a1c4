/** Identifier rules: where DIDs are published, the 2060.io AnonCreds object ids. */
import { createHash } from 'node:crypto'
import { TypedArrayEncoder } from '@credo-ts/core'
import { describe, expect, it } from 'vitest'
import { anonCredsObjectId, contentId, parseAnonCredsObjectId } from '../../src/anoncreds-registry/identifiers.ts'
import { parseConfiguredDid, publicationUrl } from '../../src/did/identifier.ts'

describe('publicationUrl', () => {
  it('maps did:web and did:webvh to their documents, https except for loopback hosts', () => {
    expect(publicationUrl('did:web:agent.example.com').href).toBe('https://agent.example.com/.well-known/did.json')
    expect(publicationUrl('did:web:agent.example.com%3A8443:users:alice').href).toBe('https://agent.example.com:8443/users/alice/did.json')
    expect(publicationUrl('did:webvh:QmScid:agent.example.com').href).toBe('https://agent.example.com/.well-known/did.jsonl')
    expect(publicationUrl('did:webvh:QmScid:localhost%3A3001').href).toBe('http://localhost:3001/.well-known/did.jsonl')
    expect(publicationUrl('did:web:127.0.0.1%3A3001').href).toBe('http://127.0.0.1:3001/.well-known/did.json')
  })

  it('refuses other methods and malformed hosts', () => {
    expect(() => publicationUrl('did:key:z6Mk')).toThrow(/not a did:web or did:webvh/)
    expect(() => publicationUrl('did:web:user@evil.example')).toThrow(/malformed/)
    expect(() => publicationUrl('did:webvh:agent.example.com')).toThrow(/malformed/)
  })

  it('refuses a path segment that would leave its place in the URL (%2F, dot segments)', () => {
    expect(() => publicationUrl('did:web:127.0.0.1%3A3001:v1%2Fadmin%2Fsecrets%23')).toThrow(/malformed path/)
    expect(() => publicationUrl('did:web:agent.example.com:a%2F..%2F..%2Fadmin')).toThrow(/malformed path/)
    expect(() => publicationUrl('did:web:agent.example.com:..:admin')).toThrow(/malformed path/)
    expect(() => publicationUrl('did:web:agent.example.com:%2E%2E:admin')).toThrow(/malformed path/)
    expect(() => publicationUrl('did:web:agent.example.com:a%5Cb')).toThrow(/malformed path/)
    expect(publicationUrl('did:web:agent.example.com:caf%C3%A9').pathname).toBe('/caf%C3%A9/did.json')
  })
})

describe('parseConfiguredDid', () => {
  it('accepts did:webvh:<host> and did:web:<host>, port as %3A', () => {
    expect(parseConfiguredDid('did:webvh:Agent.Example.com')).toEqual({
      method: 'webvh',
      host: 'agent.example.com',
      configured: 'did:webvh:agent.example.com',
    })
    expect(parseConfiguredDid('did:web:localhost%3a3001')).toEqual({
      method: 'web',
      host: 'localhost:3001',
      configured: 'did:web:localhost%3A3001',
    })
  })

  it('refuses a path, an SCID, another method and an IP address for did:webvh', () => {
    expect(() => parseConfiguredDid('did:web:agent.example.com:users')).toThrow(/no path/)
    expect(() => parseConfiguredDid('did:webvh:QmScid:agent.example.com')).toThrow(/no SCID/)
    expect(() => parseConfiguredDid('did:key:z6Mk')).toThrow(/not did:web/)
    expect(() => parseConfiguredDid('did:webvh:10.0.0.1')).toThrow(/IP address/)
  })
})

describe('AnonCreds object ids (2060.io did:web AnonCreds method)', () => {
  // The object of the method's worked example (spec.md, "Hash as Object ID"). Its printed SHA-256
  // does not match its printed canonical text, so the test checks each step on its own.
  const schema = { issuerId: 'did:web:api.anoncreds.idlab.app:acme', name: 'idlab_demo', version: '0.0.1', attrNames: ['id', 'name'] }
  const canonical = '{"attrNames":["id","name"],"issuerId":"did:web:api.anoncreds.idlab.app:acme","name":"idlab_demo","version":"0.0.1"}'
  const objectId = TypedArrayEncoder.toBase58(createHash('sha256').update(canonical).digest())

  it('derives the object id as base58btc(SHA-256(JCS(object))), independent of key order', () => {
    expect(contentId(schema)).toBe(objectId)
    expect(contentId({ version: '0.0.1', attrNames: ['id', 'name'], name: 'idlab_demo', issuerId: schema.issuerId })).toBe(objectId)
  })

  it('builds and parses <did>?service=anoncreds&relativeRef=/<kind>/<id>', () => {
    const id = anonCredsObjectId(schema.issuerId, 'schema', schema)
    expect(id).toBe(`did:web:api.anoncreds.idlab.app:acme?service=anoncreds&relativeRef=/schema/${objectId}`)
    expect(parseAnonCredsObjectId(id)).toEqual({
      did: schema.issuerId,
      service: 'anoncreds',
      relativeRef: `/schema/${objectId}`,
      kind: 'schema',
      objectId,
    })
    expect(parseAnonCredsObjectId(`${schema.issuerId}?service=anoncreds&relativeRef=/revRegDef/${objectId}`)).toBeUndefined()
    expect(parseAnonCredsObjectId(`${id}&extra=1`)).toBeUndefined()
    expect(parseAnonCredsObjectId(`did:sov:abc?service=anoncreds&relativeRef=/schema/${objectId}`)).toBeUndefined()
  })
})
