/**
 * Parley driven only the way a controller written for verana-labs/vs-agent drives it: the
 * request shapes of its `@verana-labs/vs-agent-client` (`ApiClient`: messages, invitations,
 * credential types) and of its model's messages serialised as JSON (a generated `id`, an ISO
 * `timestamp`), the NestJS client's habit of POSTing a `receipts` message for every message it
 * receives, and its event handlers (`POST /<topic>` per event type). Written from vs-agent's
 * source, not copied from it. A real Credo wallet on loopback is the user.
 */
import { randomUUID } from 'node:crypto'
import { DidCommCredentialEventTypes, DidCommCredentialState, type DidCommCredentialStateChangedEvent } from '@credo-ts/didcomm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MessageReaction, MessageReactionsMessage, ReactionAction } from '../../src/didcomm/protocols/reactions/index.ts'
import { ReceiptsEventTypes, type MessageReceiptsReceivedEvent } from '../../src/didcomm/protocols/receipts/index.ts'
import { sendOnConnection } from '../../src/didcomm/sendOnConnection.ts'
import {
  issueThroughShortUrl,
  nextOfferReceived,
  nextProofRequestReceived,
  startCredentialStack,
  type CredentialStack,
} from '../support/credential-stack.ts'
import { nextEvent } from '../support/next-event.ts'

type Envelope = { type: string; id: string; connectionId: string; threadId: string | null; [field: string]: unknown }

describe('a vs-agent controller, unchanged, against Parley', () => {
  let stack: CredentialStack
  let base: string
  let credentialDefinitionId: string
  let connectionId: string

  /** vs-agent-client `MessageService.send`: POST `<base>/v1/message`, the answer must carry a string `id`. */
  const send = async (message: Record<string, unknown>) => {
    const response = await fetch(`${base}/v1/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(message),
    })
    return { status: response.status, body: (await response.json()) as { id: string } & Record<string, unknown> }
  }
  /** A message of vs-agent's model as its `toJSON` writes it: `id` generated, `timestamp` an ISO string. */
  const modelMessage = (type: string, fields: Record<string, unknown>) => ({
    id: randomUUID(),
    type,
    connectionId,
    timestamp: new Date().toISOString(),
    ...fields,
  })
  const received = (predicate: (message: Envelope) => boolean) =>
    stack.receiver
      .waitFor((e) => e.topic === 'message-received' && predicate(e.body.message as Envelope), 90_000)
      .then((e) => e.body.message as Envelope)

  beforeAll(async () => {
    stack = await startCredentialStack('vs-agent-compatible')
    base = `http://127.0.0.1:${stack.node.adminPort}`
    // vs-agent-client `CredentialTypeService.create` and `getAll`.
    const created = await fetch(`${base}/v1/credential-types`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'membership', version: '1.0', attributes: ['name', 'level'] }),
    })
    credentialDefinitionId = ((await created.json()) as { id: string }).id
    const all = (await (await fetch(`${base}/v1/credential-types`, { headers: { accept: 'application/json' } })).json()) as { id: string }[]
    expect(all.map((type) => type.id)).toContain(credentialDefinitionId)
  }, 300_000)
  afterAll(() => stack?.stop())

  it('connects through invitations.create(): connection-state-updated completed names the invitation', async () => {
    // vs-agent-client `InvitationService.create`: GET <base>/v1/invitation, reads `url`.
    const response = await fetch(`${base}/v1/invitation`, { headers: { accept: 'application/json', 'Content-Type': 'application/json' } })
    expect(response.ok).toBe(true)
    const { url } = (await response.json()) as { url: string }
    await stack.wallet.connect(url)
    const completed = await stack.receiver.waitFor((e) => e.topic === 'connection-state-updated' && e.body.state === 'completed', 60_000)
    expect(completed.body).toMatchObject({ type: 'connection-state-updated', state: 'completed' })
    expect(completed.body.invitationId).toEqual(expect.any(String))
    connectionId = completed.body.connectionId as string
  }, 120_000)

  it("a text: the model's id is honoured, reported in message-state-updated, and refused when reused", async () => {
    const text = { ...modelMessage('text', {}), content: 'hello from a vs-agent controller' }
    const reply = stack.wallet.nextText((message) => message.content === text.content)
    const sent = await send(text)
    expect(sent.status).toBe(200)
    expect(sent.body.id).toBe(text.id)
    await reply
    const state = await stack.receiver.waitFor(
      (e) => e.topic === 'message-state-updated' && e.body.messageId === text.id && e.body.state === 'sent',
      60_000,
    )
    expect(state.body).toMatchObject({ type: 'message-state-updated', connectionId })

    const again = await send({ ...text, content: 'same id' })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ error: 'message_id_reused' })
  }, 120_000)

  it('the NestJS client answers every received message with a receipts message (both id spellings); the wallet gets the receipts', async () => {
    const walletMessageId = await stack.wallet.sendText((await stack.wallet.agent.modules.didcomm.connections.getAll())[0]!.id, 'hi agent')
    const message = await received((m) => m.type === 'text' && m.content === 'hi agent')
    expect(message.id).toBe(walletMessageId)

    for (const receipt of [{ message_id: message.id }, { messageId: message.id }]) {
      const delivered = nextEvent<MessageReceiptsReceivedEvent, string>(
        stack.wallet.agent,
        ReceiptsEventTypes.MessageReceiptsReceived,
        (p) => (p.receipts.some((r) => r.messageId === message.id && r.state === 'viewed') ? 'viewed' : undefined),
      )
      const sent = await send(
        modelMessage('receipts', { receipts: [{ ...receipt, state: 'viewed', timestamp: new Date().toISOString() }] }),
      )
      expect(sent.status, JSON.stringify(sent.body)).toBe(200)
      expect(await delivered).toBe('viewed')
    }
  }, 120_000)

  it("a user's reaction arrives as a reaction message", async () => {
    const walletConnection = (await stack.wallet.agent.modules.didcomm.connections.getAll())[0]!
    const reacted = randomUUID()
    const reaction = new MessageReactionsMessage({
      reactions: [new MessageReaction({ messageId: reacted, emoji: '🎉', action: ReactionAction.React })],
    })
    await sendOnConnection(stack.wallet.agent.context, walletConnection.id, reaction)
    const message = await received((m) => m.type === 'reaction')
    expect(message).toMatchObject({ id: reaction.id, connectionId, reactions: [{ messageId: reacted, emoji: '🎉', action: 'react' }] })
  }, 120_000)

  it('reaction and invitation without url are sent', async () => {
    const reaction = await send(
      modelMessage('reaction', {
        reactions: [{ messageId: randomUUID(), emoji: '👍', action: 'react', timestamp: new Date().toISOString() }],
      }),
    )
    const invitation = await send(modelMessage('invitation', { label: 'Sub-service', imageUrl: 'https://example.org/logo.png' }))
    for (const { status, body } of [reaction, invitation]) {
      expect(status, JSON.stringify(body)).toBe(200)
      const state = await stack.receiver.waitFor(
        (e) => e.topic === 'message-state-updated' && e.body.messageId === body.id && e.body.state !== 'created',
        60_000,
      )
      expect(state.body.state).toBe('sent')
    }
  }, 120_000)

  it('credential-issuance: credential-reception comes back on the returned id as threadId', async () => {
    const offered = nextOfferReceived(stack.wallet)
    const issuance = modelMessage('credential-issuance', {
      credentialDefinitionId,
      claims: [
        { name: 'name', value: 'Alice' },
        { name: 'level', mimeType: 'text/plain', value: 'gold' },
      ],
    })
    const sent = await send(issuance)
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    await stack.wallet.acceptCredentialOffer((await offered).id, 90_000)
    const reception = await received((m) => m.type === 'credential-reception' && m.threadId === sent.body.id)
    expect(reception).toMatchObject({ state: 'done', connectionId })
  }, 180_000)

  it("a user's proposal arrives as credential-request; credential-issuance on its threadId answers it", async () => {
    const walletConnection = (await stack.wallet.agent.modules.didcomm.connections.getAll())[0]!
    await stack.wallet.agent.modules.didcomm.credentials.proposeCredential({
      connectionId: walletConnection.id,
      protocolVersion: 'v2',
      credentialFormats: {
        anoncreds: {
          credentialDefinitionId,
          attributes: [
            { name: 'name', value: 'Alice' },
            { name: 'level', value: 'silver' },
          ],
        },
      },
    })
    const request = await received((m) => m.type === 'credential-request')
    expect(request).toMatchObject({
      credentialDefinitionId,
      claims: [
        { name: 'name', value: 'Alice' },
        { name: 'level', value: 'silver' },
      ],
    })

    // The wallet takes an offer matching its own proposal by itself (Credo's content-approved auto-accept).
    const stored = nextEvent<DidCommCredentialStateChangedEvent, string>(
      stack.wallet.agent,
      DidCommCredentialEventTypes.DidCommCredentialStateChanged,
      (p) =>
        p.credentialExchangeRecord.state === DidCommCredentialState.Done && p.credentialExchangeRecord.threadId === request.threadId
          ? p.credentialExchangeRecord.id
          : undefined,
      90_000,
    )
    const sent = await send(
      modelMessage('credential-issuance', {
        threadId: request.threadId,
        credentialDefinitionId,
        claims: [
          { name: 'name', value: 'Alice' },
          { name: 'level', value: 'silver' },
        ],
      }),
    )
    expect(sent.status).toBe(200)
    await stored
    const reception = await received((m) => m.type === 'credential-reception' && m.threadId === request.threadId)
    expect(reception).toMatchObject({ state: 'done' })
  }, 180_000)

  it('identity-proof-request without attributes asks for all of them; identity-proof-submit comes back on the returned id', async () => {
    const proofRequest = nextProofRequestReceived(stack.wallet)
    const sent = await send(
      modelMessage('identity-proof-request', {
        requestedProofItems: [{ id: 'member', type: 'verifiable-credential', credentialDefinitionId }],
        requireNonRevocation: false,
      }),
    )
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const answer = await stack.wallet.answerProofRequest((await proofRequest).id)
    expect(answer.presented).toBe(true)
    const submit = await received((m) => m.type === 'identity-proof-submit' && m.threadId === sent.body.id)
    const [item] = submit.submittedProofItems as { id: string; verified: boolean; claims: { name: string; value: string }[] }[]
    expect(item).toMatchObject({ id: 'member', verified: true })
    expect(item!.claims.map((c) => c.name).sort()).toEqual(['level', 'name'])

    const result = await send(
      modelMessage('identity-proof-result', {
        threadId: submit.threadId,
        proofItemResults: [{ id: 'member', type: 'verifiable-credential', code: 'ok' }],
      }),
    )
    expect(result.status).toBe(200)
  }, 180_000)

  it('invitations.createPresentationRequest with the extra fields vs-agent takes: the callback carries state and status', async () => {
    // vs-agent-client `InvitationService.createPresentationRequest`: POST <base>/v1/invitation/presentation-request.
    const response = await fetch(`${base}/v1/invitation/presentation-request`, {
      method: 'POST',
      headers: { accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({
        ref: 'vs-flow',
        callbackUrl: stack.callbackUrl,
        requestedCredentials: [{ credentialDefinitionId }],
        requireNonRevocation: false,
        didCommVersion: 'v1',
      }),
    })
    expect(response.ok).toBe(true)
    const { proofExchangeId, shortUrl } = (await response.json()) as { proofExchangeId: string; url: string; shortUrl: string }
    const proofRequest = nextProofRequestReceived(stack.wallet)
    await stack.wallet.connect(shortUrl)
    expect((await stack.wallet.answerProofRequest((await proofRequest).id)).presented).toBe(true)
    const ok = await stack.receiver.waitFor((e) => e.topic === 'callback' && e.body.ref === 'vs-flow' && e.body.state === 'ok', 90_000)
    expect(ok.body).toMatchObject({ proofExchangeId, status: 'ok', state: 'ok' })

    // vs-agent's presentation routes.
    const listed = (await (await fetch(`${base}/v1/presentations`)).json()) as {
      proofExchangeId: string
      state: string
      verified: boolean
      claims: unknown[]
    }[]
    expect(listed.find((p) => p.proofExchangeId === proofExchangeId)).toMatchObject({ verified: true })
    const one = (await (await fetch(`${base}/v1/presentations/${proofExchangeId}`)).json()) as { claims: { name: string }[] }
    expect(one.claims.map((c) => c.name).sort()).toEqual(['level', 'name'])
    expect((await fetch(`${base}/v1/presentations/${proofExchangeId}`, { method: 'DELETE' })).status).toBe(204)
    expect((await fetch(`${base}/v1/presentations/${proofExchangeId}`)).status).toBe(404)
  }, 180_000)

  it("vs-agent's credential exchange and connection routes: list, get, filters, delete", async () => {
    const exchanges = (await (await fetch(`${base}/v1/credential-exchanges`)).json()) as {
      credentialExchangeId: string
      state: string
      credentialDefinitionId: string | null
    }[]
    const done = exchanges.find((e) => e.state === 'done' && e.credentialDefinitionId === credentialDefinitionId)
    expect(done).toBeDefined()
    expect((await fetch(`${base}/v1/credential-exchanges/${done!.credentialExchangeId}`)).status).toBe(200)
    expect((await fetch(`${base}/v1/credential-exchanges/${randomUUID()}`)).status).toBe(404)

    const connection = (await (await fetch(`${base}/v1/connections/${connectionId}`)).json()) as { outOfBandId: string; theirDid: string }
    const byOutOfBand = (await (await fetch(`${base}/v1/connections?outOfBandId=${connection.outOfBandId}&state=completed`)).json()) as {
      id: string
    }[]
    expect(byOutOfBand.map((c) => c.id)).toEqual([connectionId])
    const none = (await (await fetch(`${base}/v1/connections?theirDid=${encodeURIComponent('did:peer:nobody')}`)).json()) as unknown[]
    expect(none).toEqual([])

    const extra = await issueThroughShortUrl(stack, credentialDefinitionId, { name: 'Bob', level: 'bronze' }).then(async () => {
      const all = (await (await fetch(`${base}/v1/connections`)).json()) as { id: string }[]
      return all.find((c) => c.id !== connectionId)!.id
    })
    expect((await fetch(`${base}/v1/connections/${extra}`, { method: 'DELETE' })).status).toBe(204)
    expect((await fetch(`${base}/v1/connections/${extra}`)).status).toBe(404)
    expect((await fetch(`${base}/v1/connections/${extra}`, { method: 'DELETE' })).status).toBe(404)
  }, 180_000)

  it('credentialTypes.export and import: a type deleted and imported again issues credentials the wallet accepts', async () => {
    // vs-agent-client `CredentialTypeService.export` / `import`.
    const url = `${base}/v1/credential-types`
    const exported = (await (
      await fetch(`${url}/export/${encodeURIComponent(credentialDefinitionId)}`, { headers: { accept: 'application/json' } })
    ).json()) as { id: string; data: Record<string, unknown> }
    expect(exported.id).toBe(credentialDefinitionId)
    expect(Object.keys(exported.data).sort()).toEqual([
      'credentialDefinition',
      'credentialDefinitionPrivate',
      'keyCorrectnessProof',
      'name',
      'schema',
      'version',
    ])

    expect((await fetch(`${url}/${encodeURIComponent(credentialDefinitionId)}`, { method: 'DELETE' })).status).toBe(204)
    const offerWhileGone = await stack.admin('/v1/credential-offer', {
      credentialDefinitionId,
      claims: [
        { name: 'name', value: 'Carol' },
        { name: 'level', value: 'gold' },
      ],
    })
    expect(offerWhileGone.status).toBe(404)

    const post = (body: unknown) =>
      fetch(`${url}/import`, {
        method: 'POST',
        headers: { accept: 'application/json', 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
    const forged = await post({ ...exported, id: `${credentialDefinitionId}x` })
    expect(forged.status).toBe(400)
    expect(((await forged.json()) as { issues: { field: string }[] }).issues[0]!.field).toBe('id')
    const imported = await post(exported)
    expect(imported.status).toBe(201)
    expect(((await imported.json()) as { id: string }).id).toBe(credentialDefinitionId)
    expect((await post(exported)).status).toBe(409)

    await issueThroughShortUrl(stack, credentialDefinitionId, { name: 'Carol', level: 'gold' })
    const held = await stack.wallet.anonCredsCredentials()
    expect(held.map((c) => c.attributes)).toContainEqual({ name: 'Carol', level: 'gold' })
  }, 180_000)
})
