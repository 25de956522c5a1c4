/**
 * Credential types, offers, short URLs and credential messages end to end: an in-process
 * agent-node and a real Credo wallet peer on loopback (test/support/credential-stack.ts).
 */
import { createServer, type Server } from 'node:http'
import { DidCommCredentialEventTypes, DidCommCredentialState, type DidCommCredentialStateChangedEvent } from '@credo-ts/didcomm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShortUrls } from '../../src/short-urls/ShortUrls.ts'
import { nextOfferReceived, startCredentialStack, type CredentialStack } from '../support/credential-stack.ts'
import { nextEvent } from '../support/next-event.ts'

const PERSON = { name: 'Alice Example', age: '27' }
const claimsOf = (values: Record<string, string>) => Object.entries(values).map(([name, value]) => ({ name, value }))

describe('credential types, offers and short URLs', () => {
  let stack: CredentialStack
  let credentialDefinitionId: string
  let schemaId: string

  beforeAll(async () => {
    stack = await startCredentialStack('issuer')
  }, 120_000)

  afterAll(async () => {
    await stack?.stop()
    // (no server when the test that starts it did not run)
    if (schemaServer) await new Promise((resolve) => schemaServer?.close(resolve))
  })

  /** Serves a JSON Schema Credential and the schema it references, on loopback. */
  let schemaServer: Server | undefined
  const serveSchemaDocuments = async (): Promise<string> => {
    const documents = new Map<string, unknown>()
    schemaServer = createServer((req, res) => {
      const document = documents.get(req.url ?? '')
      res.writeHead(document ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(document ?? {}))
    })
    await new Promise<void>((resolve) => schemaServer!.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(schemaServer.address() as { port: number }).port}`
    documents.set('/vt/schemas-member.json', {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'Member',
      type: 'object',
      properties: {
        credentialSubject: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, roles: { type: 'array' } } },
      },
    })
    documents.set('/vt/schemas-member-jsc.json', {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'JsonSchemaCredential'],
      credentialSubject: { type: 'JsonSchema', jsonSchema: { $ref: `${base}/vt/schemas-member.json` } },
    })
    return `${base}/vt/schemas-member-jsc.json`
  }

  it('creates a credential type, and returns the same one for the same name and version', async () => {
    const created = await stack.admin<{ id: string; schemaId: string; name: string; version: string; attributes: string[] }>(
      '/v1/credential-types',
      {
        name: 'person',
        version: '1.0',
        attributes: ['name', 'age'],
        supportRevocation: true,
      },
    )
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({ name: 'person', version: '1.0', attributes: ['name', 'age'], supportRevocation: true })
    credentialDefinitionId = created.body.id
    schemaId = created.body.schemaId
    expect(credentialDefinitionId).not.toBe(schemaId)

    const again = await stack.admin<{ id: string; schemaId: string }>('/v1/credential-types', {
      name: 'person',
      version: '1.0',
      attributes: ['name', 'age'],
    })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: credentialDefinitionId, schemaId })

    const list = await stack.admin<{ id: string }[]>('/v1/credential-types')
    expect(list.body.map((type) => type.id)).toEqual([credentialDefinitionId])
    const one = await stack.admin<{ id: string }>(`/v1/credential-types/${encodeURIComponent(credentialDefinitionId)}`)
    expect(one.status).toBe(200)
    expect(one.body.id).toBe(credentialDefinitionId)
    expect((await stack.admin('/v1/credential-types/unknown')).status).toBe(404)
  }, 120_000)

  it('refuses a type with repeated attribute names', async () => {
    const response = await stack.admin<{ error: string; issues: { field: string }[] }>('/v1/credential-types', {
      name: 'bad',
      version: '1',
      attributes: ['a', 'a'],
    })
    expect(response.status).toBe(400)
    expect(response.body.issues[0]!.field).toBe('attributes')
  })

  it('refuses offers for an unknown definition, with missing claims or with extra claims', async () => {
    const unknown = await stack.admin<{ error: string; message: string }>('/v1/credential-offer', {
      credentialDefinitionId: 'no-such-definition',
      claims: claimsOf(PERSON),
    })
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toMatch(/unknown credential definition 'no-such-definition'/)

    const missing = await stack.admin<{ error: string; issues: { field: string; message: string }[] }>('/v1/credential-offer', {
      credentialDefinitionId,
      claims: claimsOf({ name: 'Alice' }),
    })
    expect(missing.status).toBe(400)
    expect(missing.body.error).toBe('validation_error')
    expect(missing.body.issues).toEqual([{ field: 'claims', message: 'missing claims: age' }])

    const extra = await stack.admin<{ issues: { field: string; message: string }[] }>('/v1/credential-offer', {
      credentialDefinitionId,
      claims: claimsOf({ ...PERSON, email: 'alice@example.org' }),
    })
    expect(extra.status).toBe(400)
    expect(extra.body.issues[0]!.field).toBe('claims.2.name')
    expect(extra.body.issues[0]!.message).toMatch(/'email' is not an attribute/)
  })

  it('a wallet with no connection accepts an offer through its shortUrl and holds the credential', async () => {
    const offer = await stack.admin<{ credentialExchangeId: string; url: string; shortUrl: string }>('/v1/invitation/credential-offer', {
      credentialDefinitionId,
      claims: claimsOf(PERSON),
    })
    expect(offer.status, JSON.stringify(offer.body)).toBe(200)
    expect(offer.body.shortUrl).toMatch(new RegExp(`^http://localhost:${stack.node.publicPort}/s\\?id=[0-9a-f-]{36}$`))
    expect(offer.body.url).toContain('oob=')

    const received = nextOfferReceived(stack.wallet)
    await stack.wallet.connect(offer.body.shortUrl)
    const done = await stack.wallet.acceptCredentialOffer((await received).id, 90_000)
    expect(done.state).toBe('done')
    const held = await stack.wallet.anonCredsCredentials()
    expect(held.map((c) => c.credentialDefinitionId)).toContain(credentialDefinitionId)
    expect(held.find((c) => c.credentialDefinitionId === credentialDefinitionId)!.attributes).toEqual({ name: PERSON.name, age: 27 })

    const reception = await stack.receiver.waitFor(
      (e) =>
        e.topic === 'message-received' &&
        (e.body.message as { credentialExchangeId?: string }).credentialExchangeId === offer.body.credentialExchangeId,
      60_000,
    )
    expect(reception.body.message).toMatchObject({ type: 'credential-reception', state: 'done' })
  }, 180_000)

  it('short URLs: JSON for wallets, a redirect for browsers, 404 for unknown ids', async () => {
    const offer = await stack.admin<{ url: string; shortUrl: string }>('/v1/credential-offer', {
      credentialDefinitionId,
      claims: claimsOf(PERSON),
    })
    const asWallet = await fetch(offer.body.shortUrl, { headers: { accept: 'application/json' } })
    expect(asWallet.status).toBe(200)
    const invitation = (await asWallet.json()) as Record<string, unknown>
    expect(invitation['@type']).toMatch(/out-of-band\/1\.\d\/invitation$/)
    expect(invitation['requests~attach']).toHaveLength(1)

    const asBrowser = await fetch(offer.body.shortUrl, { redirect: 'manual', headers: { accept: 'text/html' } })
    expect(asBrowser.status).toBe(302)
    expect(asBrowser.headers.get('location')).toBe(offer.body.url)

    const base = new URL(offer.body.shortUrl).origin
    expect((await fetch(`${base}/s?id=00000000-0000-4000-8000-000000000000`)).status).toBe(404)
    expect((await fetch(`${base}/s?id=not-a-uuid`)).status).toBe(404)
    expect((await fetch(`${base}/s`)).status).toBe(404)
  })

  it('an expired short URL no longer resolves', async () => {
    const expiring = new ShortUrls(stack.node.agent, 'http://127.0.0.1', 0)
    const shortUrl = await expiring.create({ url: 'http://127.0.0.1/qr?oob=x', invitation: {}, outOfBandId: 'oob-id' })
    const id = new URL(shortUrl).searchParams.get('id')!
    expect(await expiring.resolve(id)).toBeUndefined()
    const base = `http://127.0.0.1:${stack.node.publicPort}`
    expect((await fetch(`${base}/s?id=${id}`)).status).toBe(404)
  })

  it('credential-issuance to a connected user; a declined offer arrives as credential-reception declined', async () => {
    const connectionId = await stack.connectWallet()
    const issue = () =>
      stack.admin<{ id: string }>('/v1/message', {
        type: 'credential-issuance',
        connectionId,
        credentialDefinitionId,
        claims: claimsOf(PERSON),
      })

    const accepted = nextOfferReceived(stack.wallet)
    expect((await issue()).status).toBe(200)
    const offer = await accepted
    await stack.wallet.acceptCredentialOffer(offer.id, 90_000)
    const done = await stack.receiver.waitFor(
      (e) => e.topic === 'message-received' && (e.body.message as { threadId?: string }).threadId === offer.threadId,
      60_000,
    )
    expect(done.body.message).toMatchObject({ type: 'credential-reception', state: 'done', connectionId })

    const declined = nextOfferReceived(stack.wallet)
    expect((await issue()).status).toBe(200)
    const second = await declined
    await stack.wallet.agent.modules.didcomm.credentials.declineOffer({ credentialExchangeRecordId: second.id, sendProblemReport: true })
    const reception = await stack.receiver.waitFor(
      (e) => e.topic === 'message-received' && (e.body.message as { threadId?: string }).threadId === second.threadId,
      60_000,
    )
    expect(reception.body.message).toMatchObject({ type: 'credential-reception', state: 'declined', connectionId })
  }, 180_000)

  it('POST /vt/issue-credential offers a credential whose type a JSON Schema Credential defines', async () => {
    const jsonSchemaCredential = await serveSchemaDocuments()
    const claims = { id: 'did:example:alice', name: 'Alice', roles: ['admin', 'editor'] }
    const issued = await stack.admin<{ credentialExchangeId: string; shortUrl: string }>('/vt/issue-credential', {
      format: 'anoncreds',
      jsonSchemaCredential,
      claims,
    })
    expect(issued.status, JSON.stringify(issued.body)).toBe(200)
    const types = await stack.admin<{ name: string; attributes: string[] }[]>('/v1/credential-types')
    expect(types.body.find((t) => t.name === jsonSchemaCredential)?.attributes).toEqual(['id', 'name', 'roles'])

    const received = nextOfferReceived(stack.wallet)
    await stack.wallet.connect(issued.body.shortUrl)
    await stack.wallet.acceptCredentialOffer((await received).id, 90_000)
    const held = await stack.wallet.anonCredsCredentials()
    expect(held.map((c) => c.attributes)).toContainEqual({ name: 'Alice', roles: '["admin","editor"]' })

    const again = await stack.admin('/vt/issue-credential', {
      format: 'anoncreds',
      jsonSchemaCredential,
      claims: { id: 'did:example:bob', name: 'Bob' },
    })
    expect(again.status).toBe(400)
    expect(JSON.stringify(again.body)).toMatch(/missing claims: roles/)
    const privateUrl = await stack.admin<{ issues: { field: string }[] }>('/vt/issue-credential', {
      format: 'anoncreds',
      jsonSchemaCredential: 'http://10.9.8.7/jsc.json',
      claims,
    })
    expect(privateUrl.status).toBe(400)
    expect(privateUrl.body.issues[0]!.field).toBe('jsonSchemaCredential')
    const missing = await stack.admin('/vt/issue-credential', {
      format: 'anoncreds',
      jsonSchemaCredential: jsonSchemaCredential.replace('member-jsc', 'nothing'),
      claims,
    })
    expect(missing.status).toBe(400)
    expect(JSON.stringify(missing.body)).toMatch(/answered 404/)
  }, 180_000)

  it('credential-request proposes a credential to the peer; invitation forwards an invitation', async () => {
    const connectionId = await stack.connectWallet()
    const proposal = nextEvent<DidCommCredentialStateChangedEvent, string>(
      stack.wallet.agent,
      DidCommCredentialEventTypes.DidCommCredentialStateChanged,
      (p) => (p.credentialExchangeRecord.state === DidCommCredentialState.ProposalReceived ? p.credentialExchangeRecord.id : undefined),
    )
    const requested = await stack.admin<{ id: string }>('/v1/message', {
      type: 'credential-request',
      connectionId,
      credentialDefinitionId,
      claims: claimsOf(PERSON),
    })
    expect(requested.status).toBe(200)
    const proposalId = await proposal
    const formatData = await stack.wallet.agent.modules.didcomm.credentials.getFormatData(proposalId)
    expect(formatData.proposal?.anoncreds).toMatchObject({ cred_def_id: credentialDefinitionId })

    const { body: invitation } = await stack.admin<{ url: string }>('/v1/invitation')
    const forwarded = await stack.admin<{ id: string }>('/v1/message', { type: 'invitation', connectionId, url: invitation.url })
    expect(forwarded.status).toBe(200)
    const state = await stack.receiver.waitFor(
      (e) => e.topic === 'message-state-updated' && e.body.messageId === forwarded.body.id && e.body.state !== 'created',
    )
    expect(state.body.state).toBe('sent')
  }, 180_000)

  describe('an import of the name and version of another type', () => {
    type TypeBody = { id: string; name: string; version: string }
    type ErrorBody = { error: string; issues?: { field: string }[] }
    const typesUrl = () => `http://127.0.0.1:${stack.node.adminPort}/v1/credential-types`
    const remove = async (id: string) =>
      expect((await fetch(`${typesUrl()}/${encodeURIComponent(id)}`, { method: 'DELETE' })).status).toBe(204)
    const named = async (name: string) => (await stack.admin<TypeBody[]>('/v1/credential-types')).body.filter((type) => type.name === name)

    /** Creates type `name` 1.0, exports it and deletes it: the export names a type the agent no longer has. */
    async function exportedAndDeleted(name: string) {
      const created = await stack.admin<TypeBody>('/v1/credential-types', { name, version: '1.0', attributes: ['code'] })
      expect(created.status).toBe(201)
      const exported = await stack.admin(`/v1/credential-types/export/${encodeURIComponent(created.body.id)}`)
      expect(exported.status).toBe(200)
      await remove(created.body.id)
      return exported.body
    }

    it('is a 409 naming data.name and data.version, and the name and version still find the one type', async () => {
      const request = { name: 'moved', version: '1.0', attributes: ['code'] }
      const exported = await exportedAndDeleted(request.name)
      const again = await stack.admin<TypeBody>('/v1/credential-types', request)
      expect(again.status).toBe(201)

      const imported = await stack.admin<ErrorBody>('/v1/credential-types/import', exported)
      expect(imported.status, JSON.stringify(imported.body)).toBe(409)
      expect(imported.body.error).toBe('conflict')
      expect(imported.body.issues?.map((issue) => issue.field)).toEqual(['data.name', 'data.version'])
      expect((await named(request.name)).map((type) => type.id)).toEqual([again.body.id])
      const found = await stack.admin<TypeBody>('/v1/credential-types', request)
      expect(found.status, JSON.stringify(found.body)).toBe(200)
      expect(found.body.id).toBe(again.body.id)
    }, 180_000)

    it('created at the same time: one of the two gets the name and version, the other finds it or is refused', async () => {
      const request = { name: 'raced', version: '1.0', attributes: ['code'] }
      const exported = await exportedAndDeleted(request.name)
      const [created, imported] = await Promise.all([
        stack.admin<TypeBody>('/v1/credential-types', request),
        stack.admin<TypeBody & ErrorBody>('/v1/credential-types/import', exported),
      ])
      const types = await named(request.name)
      expect(types).toHaveLength(1)
      // the creation first: the import is refused; the import first: the creation finds it
      if (imported.status === 409) expect([created.status, created.body.id]).toEqual([201, types[0]!.id])
      else expect([imported.status, created.status, created.body.id]).toEqual([201, 200, imported.body.id])
      const found = await stack.admin<TypeBody>('/v1/credential-types', request)
      expect([found.status, found.body.id]).toEqual([200, types[0]!.id])
    }, 180_000)
  })
})
