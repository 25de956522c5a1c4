/**
 * No admin input is silently dropped: every route that takes a body or a query refuses an
 * unknown field at any depth with a 400 naming it (`<path>.<key>`), and bounded fields (ids,
 * thread ids, names) refuse oversize values and NUL characters, naming the field. Validation
 * comes before any lookup, so a made-up connection id is enough.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'

type ErrorBody = { error: string; issues?: { field: string; message: string }[] }

describe('admin API strictness', () => {
  let node: TestAgentNode
  const connectionId = randomUUID()
  const definition = 'did:webvh:example.org?service=anoncreds&relativeRef=/credDef/1'

  beforeAll(async () => {
    node = await startTestAgentNode({ ENABLE_PUBLIC_API_EXPLORER: 'true' }, { label: 'strict' })
  }, 120_000)
  afterAll(() => node?.close())

  /** Sends the request and asserts a 400 `validation_error` whose issues name `field`. */
  const expectField = async (what: string, path: string, init: { method?: string; body?: unknown }, field: string) => {
    const response = await node.admin(path, init)
    const body = (await response.json()) as ErrorBody
    expect(response.status, `${what}: ${JSON.stringify(body)}`).toBe(400)
    expect(body.error, what).toBe('validation_error')
    expect(
      body.issues?.map((issue) => issue.field),
      what,
    ).toContain(field)
  }

  const message = (body: Record<string, unknown>) => ({ body: { connectionId, ...body } })

  it('POST /v1/message: an unknown key at every level of every message type is named', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['top level', { type: 'text', content: 'hi', colour: 'red' }, 'colour'],
      ['menu item', { type: 'menu-display', prompt: 'p', menuItems: [{ id: 'a', text: 'A', icon: 'x' }] }, 'menuItems.0.icon'],
      [
        'contextual menu option',
        { type: 'contextual-menu-update', title: 't', options: [{ id: 'a', title: 'A', hidden: true }] },
        'options.0.hidden',
      ],
      ['media item', { type: 'media', items: [{ uri: 'https://example.org/a.png', mimeType: 'image/png', size: 1 }] }, 'items.0.size'],
      [
        'media ciphering',
        { type: 'media', items: [{ uri: 'https://example.org/a.png', mimeType: 'image/png', ciphering: { algorithm: 'aes', key: 'k' } }] },
        'items.0.ciphering.key',
      ],
      [
        'issuance claim',
        { type: 'credential-issuance', credentialDefinitionId: definition, claims: [{ name: 'age', value: '1', unit: 'y' }] },
        'claims.0.unit',
      ],
      [
        'request claim',
        { type: 'credential-request', credentialDefinitionId: definition, claims: [{ name: 'age', value: '1', unit: 'y' }] },
        'claims.0.unit',
      ],
      [
        'proof item',
        {
          type: 'identity-proof-request',
          requestedProofItems: [{ type: 'verifiable-credential', credentialDefinitionId: definition, schema: 'x' }],
        },
        'requestedProofItems.0.schema',
      ],
      [
        'predicate',
        {
          type: 'identity-proof-request',
          requestedProofItems: [
            {
              type: 'verifiable-credential',
              credentialDefinitionId: definition,
              predicates: [{ name: 'age', type: '>=', value: 18, strict: true }],
            },
          ],
        },
        'requestedProofItems.0.predicates.0.strict',
      ],
      [
        'proof item result',
        {
          type: 'identity-proof-result',
          threadId: randomUUID(),
          proofItemResults: [{ id: '0', type: 'verifiable-credential', code: 'ok', note: 'x' }],
        },
        'proofItemResults.0.note',
      ],
      ['receipt', { type: 'receipts', receipts: [{ message_id: randomUUID(), state: 'viewed', seen: true }] }, 'receipts.0.seen'],
      [
        'reaction',
        { type: 'reaction', reactions: [{ messageId: randomUUID(), emoji: '👍', action: 'react', skin: 2 }] },
        'reactions.0.skin',
      ],
      ['invitation', { type: 'invitation', label: 'x', goal: 'y' }, 'goal'],
    ]
    for (const [what, body, field] of cases) await expectField(what, '/v1/message', message(body), field)
  })

  it('POST /v1/message: ids, thread ids and names are bounded; NUL characters refused; revocation and a url with sub-invitation fields refused', async () => {
    const long = 'a'.repeat(100_000)
    const cases: [string, Record<string, unknown>, string][] = [
      ['100,000-character thread id', { type: 'text', content: 'hi', threadId: long }, 'threadId'],
      ['100,000-character DID thread id', { type: 'text', content: 'hi', threadId: `did:web:${long}` }, 'threadId'],
      [
        'identity-proof-result thread id',
        { type: 'identity-proof-result', threadId: long, proofItemResults: [{ id: '0', type: 'verifiable-credential', code: 'ok' }] },
        'threadId',
      ],
      ['message id not a UUID', { type: 'text', content: 'hi', id: long }, 'id'],
      [
        'proof item id',
        {
          type: 'identity-proof-request',
          requestedProofItems: [{ id: long, type: 'verifiable-credential', credentialDefinitionId: definition }],
        },
        'requestedProofItems.0.id',
      ],
      [
        'NUL in a claim name',
        { type: 'credential-issuance', credentialDefinitionId: definition, claims: [{ name: 'a\u0000b', value: '1' }] },
        'claims.0.name',
      ],
      ['NUL in a menu item id', { type: 'menu-display', prompt: 'p', menuItems: [{ id: 'a\u0000', text: 'A' }] }, 'menuItems.0.id'],
      [
        'predicate not an integer',
        {
          type: 'identity-proof-request',
          requestedProofItems: [
            { type: 'verifiable-credential', credentialDefinitionId: definition, predicates: [{ name: 'age', type: '>=', value: 1.5 }] },
          ],
        },
        'requestedProofItems.0.predicates.0.value',
      ],
      [
        'predicate type',
        {
          type: 'identity-proof-request',
          requestedProofItems: [
            { type: 'verifiable-credential', credentialDefinitionId: definition, predicates: [{ name: 'age', type: '!=', value: 1 }] },
          ],
        },
        'requestedProofItems.0.predicates.0.type',
      ],
      [
        'non-revocation',
        {
          type: 'identity-proof-request',
          requireNonRevocation: true,
          requestedProofItems: [{ type: 'verifiable-credential', credentialDefinitionId: definition }],
        },
        'requireNonRevocation',
      ],
      ['url with a label', { type: 'invitation', url: 'https://example.org/?oob=x', label: 'x' }, 'label'],
      ['receipt without message id', { type: 'receipts', receipts: [{ state: 'viewed' }] }, 'receipts.0.messageId'],
    ]
    for (const [what, body, field] of cases) await expectField(what, '/v1/message', message(body), field)
  })

  it('identity-proof-request: item ids are unique, an item without id going by its index', async () => {
    const item = { type: 'verifiable-credential', credentialDefinitionId: definition }
    const cases: [string, Record<string, unknown>[], string][] = [
      ['repeated id', [{ ...item, id: 'person' }, item, { ...item, id: 'person' }], 'requestedProofItems.2.id'],
      ["id of another item's index", [{ ...item, id: '1' }, item], 'requestedProofItems.1.id'],
    ]
    for (const [what, requestedProofItems, field] of cases)
      await expectField(what, '/v1/message', message({ type: 'identity-proof-request', requestedProofItems }), field)
  })

  it('POST /v1/dead-letters/replay refuses ids together with a filter, naming the filter field', async () => {
    const ids = [randomUUID()]
    await expectField('ids and subscriber', '/v1/dead-letters/replay', { body: { ids, subscriber: 'webhook:x' } }, 'subscriber')
    await expectField('ids and connectionId', '/v1/dead-letters/replay', { body: { ids, connectionId } }, 'connectionId')
    const both = await node.admin('/v1/dead-letters/replay', { body: { ids, subscriber: 'webhook:x', connectionId } })
    expect(((await both.json()) as ErrorBody).issues?.map((issue) => issue.field).sort()).toEqual(['connectionId', 'subscriber'])
  })

  it('invitation, presentation, offer, type, vt, subscription and dead-letter bodies refuse unknown keys at every level', async () => {
    const requested = { credentialDefinitionId: definition, attributes: ['name'] }
    await expectField(
      'presentation top',
      '/v1/presentation-request',
      { body: { requestedCredentials: [requested], useLegacyDid: true } },
      'useLegacyDid',
    )
    await expectField(
      'presentation nested',
      '/v1/presentation-request',
      { body: { requestedCredentials: [{ ...requested, restrictions: [] }] } },
      'requestedCredentials.0.restrictions',
    )
    await expectField(
      'presentation predicate',
      '/v1/presentation-request',
      { body: { requestedCredentials: [{ ...requested, predicates: [{ name: 'age', type: '>=', value: 18, p_value: 18 }] }] } },
      'requestedCredentials.0.predicates.0.p_value',
    )
    await expectField(
      'simple predicate',
      '/v1/invitation/presentation-request',
      { body: { credentialDefinitionId: definition, predicates: [{ name: 'age', type: '>', value: 1, x: 1 }] } },
      'predicates.0.x',
    )
    await expectField(
      'presentation non-revocation',
      '/v1/presentation-request',
      { body: { requestedCredentials: [requested], requireNonRevocation: true } },
      'requireNonRevocation',
    )
    await expectField(
      'presentation DIDComm v2',
      '/v1/presentation-request',
      { body: { requestedCredentials: [requested], didCommVersion: 'v2' } },
      'didCommVersion',
    )
    await expectField(
      'presentation ref NUL',
      '/v1/presentation-request',
      { body: { requestedCredentials: [requested], ref: 'a\u0000' } },
      'ref',
    )
    await expectField(
      'offer claim',
      '/v1/credential-offer',
      { body: { credentialDefinitionId: definition, claims: [{ name: 'a', value: 'b', hidden: true }] } },
      'claims.0.hidden',
    )
    await expectField(
      'offer top',
      '/v1/invitation/credential-offer',
      { body: { credentialDefinitionId: definition, claims: [{ name: 'a', value: 'b' }], revocationRegistryIndex: 1 } },
      'revocationRegistryIndex',
    )
    await expectField(
      'type top',
      '/v1/credential-types',
      { body: { name: 'n', version: '1', attributes: ['a'], schemaId: 'x' } },
      'schemaId',
    )
    await expectField('type name NUL', '/v1/credential-types', { body: { name: 'n\u0000', version: '1', attributes: ['a'] } }, 'name')
    await expectField(
      'type attribute NUL',
      '/v1/credential-types',
      { body: { name: 'n', version: '1', attributes: ['a\u0000'] } },
      'attributes.0',
    )
    for (const path of ['/vt/issue-credential', '/v1/vt/issue-credential']) {
      await expectField(
        `${path} top`,
        path,
        { body: { format: 'anoncreds', jsonSchemaCredentialId: 'https://example.org/s.json', claims: {}, did: 'did:web:x' } },
        'did',
      )
      await expectField(
        `${path} both urls`,
        path,
        {
          body: {
            format: 'anoncreds',
            jsonSchemaCredential: 'https://example.org/s.json',
            jsonSchemaCredentialId: 'https://example.org/s.json',
            claims: {},
          },
        },
        'jsonSchemaCredential',
      )
    }
    const exported = {
      id: definition,
      data: {
        name: 'n',
        version: '1',
        schema: { issuerId: 'did:web:x', name: 'n', version: '1', attrNames: ['a'], seqNo: 1 },
        credentialDefinition: { issuerId: 'did:web:x', schemaId: 's', type: 'CL', tag: '1', value: { primary: {} } },
        credentialDefinitionPrivate: {},
        keyCorrectnessProof: {},
      },
    }
    await expectField('type import', '/v1/credential-types/import', { body: exported }, 'data.schema.seqNo')
    await expectField('invitation', '/v1/invitation', { body: { multiUse: true, goalCode: 'x' } }, 'goalCode')
    await expectField('invitation label NUL', '/v1/invitation', { body: { label: '\u0000' } }, 'label')
    await expectField('subscription', '/v1/event-subscriptions', { body: { url: 'https://example.org/hook', secret: 'x' } }, 'secret')
    await expectField('replay', '/v1/dead-letters/replay', { body: { ids: [randomUUID()], force: true } }, 'force')
  })

  it('queries refuse unknown parameters instead of ignoring them', async () => {
    await expectField('connections filter', '/v1/connections?theirLabel=x', {}, 'theirLabel')
    await expectField('connections state', '/v1/connections?state=sleeping', {}, 'state')
    await expectField('invitation query', '/v1/invitation?legacy=true', {}, 'legacy')
    await expectField('qr query', '/v1/qr?size=10', {}, 'size')
    await expectField('dead letters query', '/v1/dead-letters?topic=x', {}, 'topic')
    await expectField('presentations query', '/v1/presentations?state=done', {}, 'state')
    await expectField('credential exchanges query', '/v1/credential-exchanges?state=done', {}, 'state')
  })

  it('the OpenAPI document describes the added routes', async () => {
    const document = (await (await node.admin('/api/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>
      components: { schemas: Record<string, unknown> }
    }
    const methods = (path: string) => Object.keys(document.paths[path] ?? {}).sort()
    expect(methods('/v1/invitation')).toEqual(['get', 'post'])
    expect(methods('/v1/qr')).toEqual(['get'])
    expect(methods('/v1/connections/{connection_id}')).toEqual(['delete', 'get'])
    expect(methods('/v1/presentations/{proofExchangeId}')).toEqual(['delete', 'get'])
    expect(methods('/v1/credential-exchanges/{credentialExchangeId}')).toEqual(['get'])
    expect(methods('/v1/credential-types/{id}')).toEqual(['delete', 'get'])
    expect(methods('/v1/credential-types/import')).toEqual(['post'])
    expect(methods('/v1/vt/issue-credential')).toEqual(['post'])
    expect(JSON.stringify(document.components.schemas.PresentationRequestCreate)).toContain('predicates')
  })
})
