/**
 * `profile` end to end between agent-node and the wallet peer over WebSocket (2060.io
 * user-profile): the controller's profile reaches the wallet with its pictures as attachments;
 * the wallet's profile reaches the controller with pictures as URLs; a `request-profile` is
 * answered with the agent's own profile on the request's thread; bad bodies are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ProfileMessage } from '../../src/didcomm/protocols/user-profile/index.ts'
import { pictureFromUrl, pictureToUrl } from '../../src/messaging/adapters/profile.ts'
import { startWalletSession, type WalletSession } from '../support/wallet-session.ts'

describe('profile messages', () => {
  let session: WalletSession

  beforeAll(async () => {
    session = await startWalletSession('profile')
  })
  afterAll(async () => {
    await session?.stop()
  })

  it('sends the controller profile with pictures as attachments', async () => {
    const onWire = session.wallet.nextDidComm(ProfileMessage.type.messageTypeUri, ({ json }) => json['~thread'] === undefined)
    const { status, json } = await session.postJson({
      type: 'profile',
      connectionId: session.connectionId,
      displayName: 'Parley Bank',
      displayImageUrl: 'data:image/png;base64,iVBORw0KGgo=',
      displayIconUrl: 'https://bank.example.com/icon.png',
      description: 'Your bank, on chat',
      preferredLanguage: 'es-AR',
    })
    expect(status).toBe(200)
    const { json: wire } = await onWire
    expect(wire['@id']).toBe(json.id)
    expect(wire.profile).toEqual({
      displayName: 'Parley Bank',
      displayPicture: '#displayPicture',
      displayIcon: '#displayIcon',
      description: 'Your bank, on chat',
      preferredLanguage: 'es-AR',
    })
    expect(wire['~attach']).toEqual([
      { '@id': 'displayPicture', 'mime-type': 'image/png', data: { base64: 'iVBORw0KGgo=' } },
      { '@id': 'displayIcon', data: { links: ['https://bank.example.com/icon.png'] } },
    ])
    expect(await session.statesOf(json.id as string, 'sent')).toEqual(['created', 'sent'])
  })

  it('reports the wallet profile as a profile envelope with picture URLs', async () => {
    const message = await session.wallet.agent.modules.userProfile.send(session.walletConnectionId, {
      profile: {
        displayName: 'Alice',
        displayPicture: { mimeType: 'image/jpeg', base64: '/9j/4AAQ' },
        displayIcon: null,
        preferredLanguage: 'en',
      },
    })
    expect(await session.received(message.id)).toEqual({
      type: 'profile',
      id: message.id,
      connectionId: session.connectionId,
      timestamp: expect.any(Number),
      threadId: null,
      displayName: 'Alice',
      displayImageUrl: 'data:image/jpeg;base64,/9j/4AAQ',
      displayIconUrl: null,
      preferredLanguage: 'en',
    })
  })

  it('answers request-profile with its own profile on the request thread', async () => {
    const answer = session.wallet.nextDidComm(ProfileMessage.type.messageTypeUri, ({ json }) => json['~thread'] !== undefined)
    const request = await session.wallet.agent.modules.userProfile.request(session.walletConnectionId)
    const { json } = await answer
    expect(json['~thread']).toEqual({ thid: request.id })
    expect(json.profile).toEqual({ displayName: 'profile' })
  })

  it('converts picture URLs both ways', () => {
    expect(pictureFromUrl('data:image/svg+xml,%3Csvg%2F%3E')).toEqual({
      mimeType: 'image/svg+xml',
      base64: Buffer.from('<svg/>').toString('base64'),
    })
    expect(pictureFromUrl('https://x.example/a.png')).toEqual({ links: ['https://x.example/a.png'] })
    expect(pictureToUrl({ base64: 'AAAA' })).toBe('data:application/octet-stream;base64,AAAA')
    expect(pictureToUrl({ links: ['https://x.example/a.png', 'https://mirror.example/a.png'] })).toBe('https://x.example/a.png')
  })

  it.each([
    [{ displayName: 42 }, 'displayName'],
    [{ displayImageUrl: 'javascript:alert(1)' }, 'displayImageUrl'],
    [{ preferredLanguage: 'not a tag!' }, 'preferredLanguage'],
  ])('refuses a bad profile body %j naming %s', async (fields, field) => {
    const { status, json } = await session.postJson({ type: 'profile', connectionId: session.connectionId, ...fields })
    expect(status).toBe(400)
    expect((json.issues as { field: string }[]).map((issue) => issue.field)).toContain(field)
  })
})
