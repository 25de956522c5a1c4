/**
 * AnonCreds predicates end to end: requested in `POST /v1/presentation-request` and in
 * `identity-proof-request`, carried into the proof request's `requested_predicates`, proven by a
 * real Credo wallet, verified, and reported (`ok` callback, `identity-proof-submit`); a wallet
 * whose credential does not satisfy a predicate cannot present, and the flow is not `ok`.
 * The wallet holds one credential: name Alice Example, age 27.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueThroughShortUrl, nextProofRequestReceived, startCredentialStack, type CredentialStack } from '../support/credential-stack.ts'

type Predicate = { name: string; type: string; value: number }
type Callback = {
  ref?: string
  status: string
  state: string
  claims?: { name: string; value: string }[]
  predicates?: Predicate[]
  reason?: string
}
type Submitted = { verified: boolean; claims?: { name: string; value: string }[]; predicates?: Predicate[]; errorCode?: string }

describe('AnonCreds predicates', () => {
  let stack: CredentialStack
  let person: string
  let connectionId: string

  beforeAll(async () => {
    stack = await startCredentialStack('predicates')
    person = await stack.credentialType('person', ['name', 'age'])
    await issueThroughShortUrl(stack, person, { name: 'Alice Example', age: '27' })
    connectionId = await stack.connectWallet()
  }, 300_000)
  afterAll(() => stack?.stop())

  /** Creates a presentation request for `predicates`, lets the wallet answer it; returns the callbacks once final. */
  const presentThroughShortUrl = async (ref: string, predicates: Predicate[], attributes?: string[]) => {
    const created = await stack.admin<{ shortUrl: string; proofExchangeId: string }>('/v1/presentation-request', {
      ref,
      callbackUrl: stack.callbackUrl,
      requestedCredentials: [{ credentialDefinitionId: person, ...(attributes ? { attributes } : {}), predicates }],
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const request = nextProofRequestReceived(stack.wallet)
    await stack.wallet.connect(created.body.shortUrl)
    const received = await request
    const format = await stack.wallet.agent.modules.didcomm.proofs.getFormatData(received.id)
    const answer = await stack.wallet.answerProofRequest(received.id)
    await stack.receiver.waitFor(
      (e) => e.topic === 'callback' && e.body.ref === ref && !['scanned', 'connected'].includes(String(e.body.status)),
      90_000,
    )
    const callbacks = stack.receiver.events.filter((e) => e.topic === 'callback' && e.body.ref === ref).map((e) => e.body as Callback)
    return {
      answer,
      callbacks,
      request: format.request?.anoncreds as { requested_predicates: Record<string, { name: string; p_type: string; p_value: number }> },
    }
  }

  it('>=, >, <= and < on an integer attribute are requested, proven and listed in the ok callback', async () => {
    const predicates = [
      { name: 'age', type: '>=', value: 18 },
      { name: 'age', type: '>', value: 26 },
      { name: 'age', type: '<=', value: 27 },
      { name: 'age', type: '<', value: 28 },
    ]
    const { answer, callbacks, request } = await presentThroughShortUrl('all-four', predicates, ['name'])
    expect(Object.values(request.requested_predicates).map((p) => [p.name, p.p_type, p.p_value])).toEqual(
      predicates.map((p) => [p.name, p.type, p.value]),
    )
    expect(answer.presented).toBe(true)
    const final = callbacks.at(-1)!
    expect(final).toMatchObject({ status: 'ok', state: 'ok', claims: [{ name: 'name', value: 'Alice Example' }], predicates })
    expect(final.claims!.map((c) => c.name)).not.toContain('age')
  }, 180_000)

  it('a wallet whose credential does not satisfy the predicate cannot present: the flow is refused, never ok', async () => {
    const { answer, callbacks } = await presentThroughShortUrl('too-young', [{ name: 'age', type: '>', value: 27 }])
    expect(answer.presented).toBe(false)
    expect(callbacks.map((c) => c.status)).not.toContain('ok')
    expect(callbacks.at(-1)).toMatchObject({ status: 'refused' })
  }, 180_000)

  it('identity-proof-request with predicates: identity-proof-submit, on the message id as thread, lists them as proven', async () => {
    const request = nextProofRequestReceived(stack.wallet)
    const sent = await stack.admin<{ id: string }>('/v1/message', {
      type: 'identity-proof-request',
      connectionId,
      requestedProofItems: [
        {
          id: 'adult',
          type: 'verifiable-credential',
          credentialDefinitionId: person,
          predicates: [{ name: 'age', type: '>=', value: 21 }],
        },
      ],
    })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const received = await request
    expect(received.threadId).toBe(sent.body.id)
    expect((await stack.wallet.answerProofRequest(received.id)).presented).toBe(true)
    const submit = await stack.receiver.waitFor(
      (e) =>
        e.topic === 'message-received' &&
        (e.body.message as { type: string }).type === 'identity-proof-submit' &&
        (e.body.message as { threadId: string }).threadId === sent.body.id,
      90_000,
    )
    const [item] = (submit.body.message as { submittedProofItems: Submitted[] }).submittedProofItems
    expect(item).toMatchObject({ id: 'adult', verified: true, claims: [], predicates: [{ name: 'age', type: '>=', value: 21 }] })
  }, 180_000)

  it('identity-proof-request whose predicate the wallet cannot satisfy: identity-proof-submit not verified', async () => {
    const request = nextProofRequestReceived(stack.wallet)
    const sent = await stack.admin<{ id: string }>('/v1/message', {
      type: 'identity-proof-request',
      connectionId,
      requestedProofItems: [
        {
          type: 'verifiable-credential',
          credentialDefinitionId: person,
          attributes: ['name'],
          predicates: [{ name: 'age', type: '<', value: 18 }],
        },
      ],
    })
    expect(sent.status).toBe(200)
    expect((await stack.wallet.answerProofRequest((await request).id)).presented).toBe(false)
    const submit = await stack.receiver.waitFor(
      (e) => e.topic === 'message-received' && (e.body.message as { threadId?: string }).threadId === sent.body.id,
      90_000,
    )
    const [item] = (submit.body.message as { submittedProofItems: Submitted[] }).submittedProofItems
    expect(item).toMatchObject({ verified: false, errorCode: 'refused' })
    expect(item!.predicates).toBeUndefined()
  }, 180_000)

  it('a predicate on a name the credential type does not have is a 400 naming it', async () => {
    const refused = await stack.admin<{ issues: { field: string }[] }>('/v1/presentation-request', {
      requestedCredentials: [{ credentialDefinitionId: person, predicates: [{ name: 'height', type: '>=', value: 150 }] }],
    })
    expect(refused.status).toBe(400)
    expect(refused.body.issues.map((i) => i.field)).toEqual(['requestedCredentials.0.predicates.0.name'])
  })
})
