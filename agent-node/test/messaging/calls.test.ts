/**
 * Call signalling end to end between agent-node and the wallet peer over WebSocket (2060.io
 * calls): each of call-offer / call-accept / call-reject / call-end sent through
 * `POST /v1/message` reaches the wallet on the call's thread with its parameters; each sent by
 * the wallet reaches the controller as its envelope; bad bodies are refused naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CallAcceptMessage, CallEndMessage, CallOfferMessage, CallRejectMessage } from '../../src/didcomm/protocols/calls/index.ts'
import { startWalletSession, type WalletSession } from '../support/wallet-session.ts'

const PARAMETERS = { wsUrl: 'wss://sfu.example.com/room/42', roomId: '42', peerId: 'agent' }

describe('call messages', () => {
  let session: WalletSession

  beforeAll(async () => {
    session = await startWalletSession('calls')
  })
  afterAll(async () => {
    await session?.stop()
  })

  it('sends an offer, then accept, reject and end on its thread', async () => {
    const offerOnWire = session.wallet.nextDidComm(CallOfferMessage.type.messageTypeUri)
    const offer = await session.postJson({
      type: 'call-offer',
      connectionId: session.connectionId,
      callType: 'video',
      offerExpirationTime: '2030-01-01T10:00:00.000Z',
      description: 'Video check with an agent',
      parameters: PARAMETERS,
    })
    expect(offer.status).toBe(200)
    const offerId = offer.json.id as string
    const { json: wireOffer } = await offerOnWire
    expect(wireOffer).toMatchObject({
      '@id': offerId,
      call_type: 'video',
      offer_expiration_time: '2030-01-01T10:00:00.000Z',
      description: 'Video check with an agent',
      parameters: PARAMETERS,
    })

    for (const [type, messageClass, extra] of [
      ['call-accept', CallAcceptMessage, { parameters: { peerId: 'controller' } }],
      ['call-reject', CallRejectMessage, {}],
      ['call-end', CallEndMessage, {}],
    ] as const) {
      const onWire = session.wallet.nextDidComm(messageClass.type.messageTypeUri)
      const { status, json } = await session.postJson({ type, connectionId: session.connectionId, threadId: offerId, ...extra })
      expect(status).toBe(200)
      const { json: wire } = await onWire
      expect(wire['@id']).toBe(json.id)
      expect(wire['~thread']).toEqual({ thid: offerId })
      if ('parameters' in extra) expect(wire.parameters).toEqual(extra.parameters)
      expect(await session.statesOf(json.id as string, 'sent')).toEqual(['created', 'sent'])
    }
  })

  it('reports each call message the wallet sends', async () => {
    const calls = session.wallet.agent.modules.calls
    const offer = await calls.offer(session.walletConnectionId, {
      callType: 'audio',
      offerStartTime: new Date('2030-01-01T09:00:00.000Z'),
      description: 'call me',
      parameters: PARAMETERS,
    })
    expect(await session.received(offer.id)).toEqual({
      type: 'call-offer',
      id: offer.id,
      connectionId: session.connectionId,
      timestamp: expect.any(Number),
      threadId: null,
      callType: 'audio',
      offerStartTime: '2030-01-01T09:00:00.000Z',
      description: 'call me',
      parameters: PARAMETERS,
    })

    const accept = await calls.accept(session.walletConnectionId, { threadId: offer.id, parameters: { peerId: 'wallet' } })
    expect(await session.received(accept.id)).toMatchObject({ type: 'call-accept', threadId: offer.id, parameters: { peerId: 'wallet' } })
    const reject = await calls.reject(session.walletConnectionId, { threadId: offer.id })
    expect(await session.received(reject.id)).toEqual({
      type: 'call-reject',
      id: reject.id,
      connectionId: session.connectionId,
      timestamp: expect.any(Number),
      threadId: offer.id,
    })
    const end = await calls.end(session.walletConnectionId, { threadId: offer.id })
    expect(await session.received(end.id)).toEqual({
      type: 'call-end',
      id: end.id,
      connectionId: session.connectionId,
      timestamp: expect.any(Number),
      threadId: offer.id,
    })
  })

  it.each([
    [{ type: 'call-offer' }, 'parameters'],
    [{ type: 'call-offer', parameters: {}, callType: 'hologram' }, 'callType'],
    [{ type: 'call-offer', parameters: {}, offerExpirationTime: 'tomorrow' }, 'offerExpirationTime'],
    [{ type: 'call-accept', parameters: {} }, 'threadId'],
    [{ type: 'call-accept', threadId: 'offer-0001' }, 'parameters'],
    [{ type: 'call-reject' }, 'threadId'],
    [{ type: 'call-end', threadId: '' }, 'threadId'],
  ])('refuses a bad call body %j naming %s', async (fields, field) => {
    const { status, json } = await session.postJson({ connectionId: session.connectionId, ...fields })
    expect(status).toBe(400)
    expect((json.issues as { field: string }[]).map((issue) => issue.field)).toContain(field)
  })
})
