/**
 * Presentation requests end to end: an in-process agent-node and a real Credo wallet peer on
 * loopback (test/support/credential-stack.ts), the callback receiver on loopback (allowed by
 * OUTBOUND_ALLOWED_NETWORKS). The wallet first receives two credentials of two types.
 */
import {
  DidCommProofEventTypes,
  DidCommProofState,
  type DidCommProofExchangeRecord,
  type DidCommProofStateChangedEvent,
} from '@credo-ts/didcomm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueThroughShortUrl, nextProofRequestReceived, startCredentialStack, type CredentialStack } from '../support/credential-stack.ts'
import { presentForged } from '../support/forged-presentation.ts'
import { nextEvent } from '../support/next-event.ts'

type Callback = { ref?: string; proofExchangeId: string; status: string; claims?: { name: string; value: string }[]; reason?: string }

describe('presentation requests', () => {
  let stack: CredentialStack
  let person: string
  let contact: string
  let unheld: string

  beforeAll(async () => {
    stack = await startCredentialStack('verifier')
    person = await stack.credentialType('person', ['name', 'age'])
    contact = await stack.credentialType('contact', ['email', 'phone'])
    unheld = await stack.credentialType('membership', ['club'])
    await issueThroughShortUrl(stack, person, { name: 'Alice Example', age: '27' })
    await issueThroughShortUrl(stack, contact, { email: 'alice@example.org', phone: '555-0100' })
  }, 300_000)

  afterAll(async () => {
    await stack?.stop()
  })

  const callbacksOf = async (ref: string, last: (status: string) => boolean) => {
    await stack.receiver.waitFor((e) => e.topic === 'callback' && e.body.ref === ref && last(String(e.body.status)), 90_000)
    return stack.receiver.events.filter((e) => e.topic === 'callback' && e.body.ref === ref).map((e) => e.body as Callback)
  }

  /** Creates a callback-shaped request for `requestedCredentials`, lets the wallet open its short URL; returns the wallet's request. */
  const requestThroughShortUrl = async (ref: string, requestedCredentials: { credentialDefinitionId: string; attributes: string[] }[]) => {
    const created = await stack.admin<{ proofExchangeId: string; url: string; shortUrl: string }>('/v1/presentation-request', {
      ref,
      callbackUrl: stack.callbackUrl,
      requestedCredentials,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect(created.body.shortUrl).toMatch(/\/s\?id=[0-9a-f-]{36}$/)
    const request = nextProofRequestReceived(stack.wallet)
    await stack.wallet.connect(created.body.shortUrl)
    return { proofExchangeId: created.body.proofExchangeId, request: await request }
  }

  it('every requested credential is requested; the callback goes scanned -> connected -> ok with the claims', async () => {
    const { proofExchangeId, request } = await requestThroughShortUrl('two-credentials', [
      { credentialDefinitionId: person, attributes: ['name', 'age'] },
      { credentialDefinitionId: contact, attributes: ['email'] },
    ])
    const answer = await stack.wallet.answerProofRequest(request.id)
    expect(answer.presented, answer.presented ? '' : answer.reason).toBe(true)

    const callbacks = await callbacksOf('two-credentials', (status) => status === 'ok')
    expect(callbacks.map((c) => c.status)).toEqual(['scanned', 'connected', 'ok'])
    expect(callbacks.every((c) => c.proofExchangeId === proofExchangeId)).toBe(true)
    expect(callbacks[2]!.claims).toEqual([
      { name: 'name', value: 'Alice Example' },
      { name: 'age', value: '27' },
      { name: 'email', value: 'alice@example.org' },
    ])
    expect(callbacks[0]!.claims).toBeUndefined()
  }, 180_000)

  it('a request the wallet cannot satisfy ends as refused, with the reason', async () => {
    const { request } = await requestThroughShortUrl('unheld', [{ credentialDefinitionId: unheld, attributes: ['club'] }])
    const answer = await stack.wallet.answerProofRequest(request.id)
    expect(answer.presented).toBe(false)
    const callbacks = await callbacksOf('unheld', (status) => status === 'refused')
    expect(callbacks.map((c) => c.status)).toEqual(['scanned', 'connected', 'refused'])
    expect(callbacks[2]!.reason).toMatch(/cannot satisfy the proof request/)
    expect(callbacks[2]!.claims).toBeUndefined()
  }, 180_000)

  it('an invalid (forged) presentation is reported as verification-error', async () => {
    const { request } = await requestThroughShortUrl('forged', [{ credentialDefinitionId: person, attributes: ['name'] }])
    await presentForged(stack.wallet, request.id, 'credential-0', 'name', 'Mallory')
    const callbacks = await callbacksOf('forged', (status) => status === 'verification-error')
    expect(callbacks.map((c) => c.status)).toEqual(['scanned', 'connected', 'verification-error'])
    expect(callbacks[2]!.reason).toBeTruthy()
  }, 180_000)

  it('the simple shape works without a callback', async () => {
    const created = await stack.admin<{ proofExchangeId: string; shortUrl: string }>('/v1/invitation/presentation-request', {
      credentialDefinitionId: person,
      claims: ['name'],
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const request = nextProofRequestReceived(stack.wallet)
    await stack.wallet.connect(created.body.shortUrl)
    const answer = await stack.wallet.answerProofRequest((await request).id)
    expect(answer.presented).toBe(true)
  }, 180_000)

  it('refuses a private callback URL, an unknown definition and unknown attributes with a 4xx naming the field', async () => {
    const request = (body: Record<string, unknown>) =>
      stack.admin<{ error: string; message: string; issues?: { field: string; message: string }[] }>('/v1/presentation-request', body)
    const metadata = await request({
      ref: 'x',
      callbackUrl: 'http://169.254.169.254/latest',
      requestedCredentials: [{ credentialDefinitionId: person, attributes: ['name'] }],
    })
    expect(metadata.status).toBe(400)
    expect(metadata.body.issues![0]!.field).toBe('callbackUrl')
    expect(metadata.body.message).toMatch(/169\.254\.169\.254 is a linkLocal address/)
    const privateNet = await request({
      ref: 'x',
      callbackUrl: 'http://10.1.2.3/cb',
      requestedCredentials: [{ credentialDefinitionId: person, attributes: ['name'] }],
    })
    expect(privateNet.status).toBe(400)
    expect(privateNet.body.issues![0]!.field).toBe('callbackUrl')

    const unknown = await request({
      ref: 'x',
      requestedCredentials: [{ credentialDefinitionId: 'no-such-definition', attributes: ['name'] }],
    })
    expect(unknown.status).toBe(404)
    const attribute = await request({ ref: 'x', requestedCredentials: [{ credentialDefinitionId: person, attributes: ['shoe-size'] }] })
    expect(attribute.status).toBe(400)
    expect(attribute.body.issues![0]!.field).toBe('requestedCredentials.0.attributes')
    // The simple shape's errors name its own fields, not the entry it becomes.
    const claim = await request({ ref: 'x', credentialDefinitionId: person, claims: ['shoe-size'] })
    expect(claim.status).toBe(400)
    expect(claim.body.issues!.map((i) => i.field)).toEqual(['claims'])
    const predicate = await request({ ref: 'x', credentialDefinitionId: person, predicates: [{ name: 'shoe-size', type: '>=', value: 1 }] })
    expect(predicate.status).toBe(400)
    expect(predicate.body.issues!.map((i) => i.field)).toEqual(['predicates.0.name'])

    const neither = await request({ ref: 'x' })
    expect(neither.status).toBe(400)
    expect(neither.body.issues!.map((i) => i.field)).toEqual(['credentialDefinitionId', 'claims'])
    const both = await request({
      credentialDefinitionId: person,
      claims: ['name'],
      requestedCredentials: [{ credentialDefinitionId: person, attributes: ['name'] }],
    })
    expect(both.status).toBe(400)
    expect(both.body.issues![0]!.field).toBe('requestedCredentials')
  })

  /** Sends an identity-proof-request for the person's name, lets the wallet present; returns the submit and the wallet's exchange id. */
  const identityProof = async (connectionId: string) => {
    const request = nextProofRequestReceived(stack.wallet)
    const sent = await stack.admin<{ id: string }>('/v1/message', {
      type: 'identity-proof-request',
      connectionId,
      requestedProofItems: [{ id: 'who', type: 'verifiable-credential', credentialDefinitionId: person, attributes: ['name'] }],
    })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const received = await request
    const answer = await stack.wallet.answerProofRequest(received.id)
    expect(answer.presented).toBe(true)
    const submit = await stack.receiver.waitFor(
      (e) =>
        e.topic === 'message-received' &&
        (e.body.message as { type: string; threadId: string }).type === 'identity-proof-submit' &&
        (e.body.message as { threadId: string }).threadId === received.threadId,
      90_000,
    )
    return { submit: submit.body.message as Record<string, unknown>, walletExchange: received }
  }

  /** The wallet's proof exchange `id` once it reaches `state`. */
  const walletExchangeIn = (id: string, state: DidCommProofState) =>
    nextEvent<DidCommProofStateChangedEvent, DidCommProofExchangeRecord>(
      stack.wallet.agent,
      DidCommProofEventTypes.ProofStateChanged,
      (p) => (p.proofRecord.id === id && p.proofRecord.state === state ? p.proofRecord : undefined),
      90_000,
    )

  it('identity-proof-request to a connected user; identity-proof-submit with verified claims; identity-proof-result ok acknowledges it', async () => {
    const connectionId = await stack.connectWallet()
    const { submit, walletExchange } = await identityProof(connectionId)
    expect(submit).toMatchObject({
      type: 'identity-proof-submit',
      connectionId,
      threadId: walletExchange.threadId,
      submittedProofItems: [
        { id: 'who', type: 'verifiable-credential', verified: true, claims: [{ name: 'name', value: 'Alice Example' }] },
      ],
    })
    // The wallet waits for the verdict: nothing acknowledges the presentation until the controller does.
    expect((await stack.wallet.agent.modules.didcomm.proofs.getById(walletExchange.id)).state).toBe(DidCommProofState.PresentationSent)

    const done = walletExchangeIn(walletExchange.id, DidCommProofState.Done)
    const result = await stack.admin('/v1/message', {
      type: 'identity-proof-result',
      connectionId,
      threadId: walletExchange.threadId,
      proofItemResults: [{ id: 'who', type: 'verifiable-credential', code: 'ok' }],
    })
    expect(result.status, JSON.stringify(result.body)).toBe(200)
    expect((await done).state).toBe(DidCommProofState.Done)
  }, 180_000)

  it('identity-proof-result error sends the user a problem report with the description', async () => {
    const connectionId = await stack.connectWallet()
    const { walletExchange } = await identityProof(connectionId)
    const abandoned = walletExchangeIn(walletExchange.id, DidCommProofState.Abandoned)
    const result = await stack.admin('/v1/message', {
      type: 'identity-proof-result',
      connectionId,
      threadId: walletExchange.threadId,
      proofItemResults: [{ id: 'who', type: 'verifiable-credential', code: 'error', description: 'name not on the guest list' }],
    })
    expect(result.status, JSON.stringify(result.body)).toBe(200)
    expect((await abandoned).errorMessage).toContain('name not on the guest list')
  }, 180_000)

  it('identity-proof-result without a threadId, or with a bad code, is a 400 naming the field', async () => {
    const connectionId = await stack.connectWallet()
    const missing = await stack.admin<{ issues: { field: string }[] }>('/v1/message', {
      type: 'identity-proof-result',
      connectionId,
      proofItemResults: [{ id: 'who', type: 'verifiable-credential', code: 'ok' }],
    })
    expect(missing.status).toBe(400)
    expect(missing.body.issues.map((i) => i.field)).toContain('threadId')
    const badCode = await stack.admin<{ issues: { field: string }[] }>('/v1/message', {
      type: 'identity-proof-result',
      connectionId,
      threadId: 'thread-0001',
      proofItemResults: [{ id: 'who', type: 'verifiable-credential', code: 'maybe' }],
    })
    expect(badCode.status).toBe(400)
    expect(badCode.body.issues.map((i) => i.field)).toContain('proofItemResults.0.code')
  }, 180_000)
})
