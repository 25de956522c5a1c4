/**
 * `media` end to end between agent-node and the wallet peer over WebSocket: the controller's
 * `POST /v1/message` reaches the wallet as a 2060.io `share-media` message; the wallet's
 * `share-media` reaches the controller as a `media` envelope and is acknowledged with a
 * `received` receipt; a malformed `share-media` is refused with a problem report and the agent
 * keeps serving; bad bodies are refused naming the field.
 */
import { DidCommEventTypes, DidCommMessage, type DidCommMessageSentEvent } from '@credo-ts/didcomm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShareMediaMessage } from '../../src/didcomm/protocols/media-sharing/index.ts'
import { MessageReceiptsMessage } from '../../src/didcomm/protocols/receipts/index.ts'
import { sendOnConnection } from '../../src/didcomm/sendOnConnection.ts'
import { startWalletSession, type WalletSession } from '../support/wallet-session.ts'

/** A share-media without items, which Credo's own sender would refuse to send (it validates outbound messages too). */
class MalformedShareMedia extends DidCommMessage {
  override readonly type = ShareMediaMessage.type.messageTypeUri
  readonly items: unknown[] = []
  constructor() {
    super()
    this.id = this.generateId()
  }
}

describe('media messages', () => {
  let session: WalletSession

  beforeAll(async () => {
    session = await startWalletSession('media')
  })
  afterAll(async () => {
    await session?.stop()
  })

  it('sends media to the wallet as share-media with attachments and descriptors', async () => {
    const onWire = session.wallet.nextDidComm(ShareMediaMessage.type.messageTypeUri)
    const { status, json } = await session.postJson({
      type: 'media',
      connectionId: session.connectionId,
      threadId: 'thread-of-the-question',
      description: 'Your boarding pass',
      items: [
        {
          id: 'item-1',
          uri: 'https://files.example.com/pass.png',
          mimeType: 'image/png',
          filename: 'pass.png',
          byteCount: 2048,
          width: 640,
          height: 480,
          preview: 'data:image/png;base64,iVBORw0KGgo=',
          ciphering: { algorithm: 'aes-256-ctr', parameters: { key: 'k', iv: 'i' } },
        },
        { uri: 'https://files.example.com/note.ogg', mimeType: 'audio/ogg', duration: 12.5 },
      ],
    })
    expect(status).toBe(200)
    const { json: wire } = await onWire
    expect(wire['@id']).toBe(json.id)
    expect(wire['~thread']).toEqual({ pthid: 'thread-of-the-question' })
    expect(wire.description).toBe('Your boarding pass')
    expect(wire['~attach']).toEqual([
      {
        '@id': '0',
        'mime-type': 'image/png',
        filename: 'pass.png',
        byte_count: 2048,
        data: { links: ['https://files.example.com/pass.png'] },
      },
      { '@id': '1', 'mime-type': 'audio/ogg', data: { links: ['https://files.example.com/note.ogg'] } },
    ])
    const items = wire.items as Record<string, unknown>[]
    expect(items[0]).toEqual({
      '@id': 'item-1',
      attachment_id: '0',
      ciphering: { algorithm: 'aes-256-ctr', parameters: { key: 'k', iv: 'i' } },
      metadata: { preview: 'data:image/png;base64,iVBORw0KGgo=', width: 640, height: 480 },
    })
    expect(items[1]).toMatchObject({ attachment_id: '1', metadata: { duration: 12.5 } })
    expect(items[1]!['@id']).toEqual(expect.any(String))
    expect(await session.statesOf(json.id as string, 'sent')).toEqual(['created', 'sent'])
  })

  it('reports media the wallet shares as a media envelope and acknowledges it', async () => {
    const receipt = session.wallet.nextDidComm(MessageReceiptsMessage.type.messageTypeUri)
    const message = await session.wallet.agent.modules.media.share(session.walletConnectionId, {
      parentThreadId: 'menu-thread',
      description: 'my selfie',
      items: [
        {
          id: 'selfie',
          uri: 'https://wallet.example.org/selfie.jpg',
          mimeType: 'image/jpeg',
          byteCount: 90_000,
          fileName: 'selfie.jpg',
          ciphering: { algorithm: 'aes-256-ctr', parameters: { key: 'k' } },
          metadata: { width: 1080, height: 1920, preview: 'data:image/jpeg;base64,/9j/', title: 42 },
        },
      ],
    })
    const envelope = await session.received(message.id)
    expect(envelope).toEqual({
      type: 'media',
      id: message.id,
      connectionId: session.connectionId,
      timestamp: Math.floor(message.sentTime.getTime() / 1000),
      threadId: 'menu-thread',
      description: 'my selfie',
      items: [
        {
          id: 'selfie',
          uri: 'https://wallet.example.org/selfie.jpg',
          mimeType: 'image/jpeg',
          byteCount: 90_000,
          filename: 'selfie.jpg',
          ciphering: { algorithm: 'aes-256-ctr', parameters: { key: 'k' } },
          width: 1080,
          height: 1920,
          preview: 'data:image/jpeg;base64,/9j/',
        },
      ],
    })
    const { json } = await receipt
    expect(json.receipts).toEqual([{ message_id: message.id, state: 'received', timestamp: expect.any(Number) }])
  })

  it('refuses a malformed share-media with a problem report and keeps serving', async () => {
    const malformed = new MalformedShareMedia()
    const problem = new Promise<DidCommMessage>((resolve) => {
      session.node.agent.events.on<DidCommMessageSentEvent>(DidCommEventTypes.DidCommMessageSent, ({ payload }) => {
        if (payload.message.message.thread?.parentThreadId === malformed.id) resolve(payload.message.message)
      })
    })
    await sendOnConnection(session.wallet.agent.context, session.walletConnectionId, malformed)
    expect((await problem).type).toBe('https://didcomm.org/notification/1.0/problem-report')
    const good = await session.wallet.agent.modules.media.share(session.walletConnectionId, {
      items: [{ id: 'y', uri: 'https://x.example/b.png', mimeType: 'image/png' }],
    })
    expect(await session.received(good.id)).toMatchObject({ type: 'media', items: [{ id: 'y' }] })
    expect(session.receiver.events.some((e) => (e.body.message as { id?: string } | undefined)?.id === malformed.id)).toBe(false)
  })

  it.each([
    [{ items: [] }, 'items'],
    [{ items: [{ uri: 'ftp://files.example.com/a.png', mimeType: 'image/png' }] }, 'items.0.uri'],
    [{ items: [{ uri: 'https://files.example.com/a.png' }] }, 'items.0.mimeType'],
    [{ items: [{ uri: 'https://files.example.com/a.png', mimeType: 'image/png', width: -3 }] }, 'items.0.width'],
  ])('refuses a bad media body %j naming %s', async (fields, field) => {
    const { status, json } = await session.postJson({ type: 'media', connectionId: session.connectionId, ...fields })
    expect(status).toBe(400)
    expect(json.error).toBe('validation_error')
    expect((json.issues as { field: string }[]).map((issue) => issue.field)).toContain(field)
  })
})
