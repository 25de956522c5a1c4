/**
 * Delivery states driven by the wallet's 2060.io receipts: a message the controller sent moves
 * created -> sent -> delivered (`received` receipt) -> viewed (`viewed` receipt), one
 * `message-state-updated` each, in order; late, repeated or foreign receipts move nothing. And the
 * other way: what the wallet sends is acknowledged with `received` receipts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ReceiptState, ReceiptsEventTypes, type MessageReceiptsReceivedEvent } from '../../src/didcomm/protocols/receipts/index.ts'
import { conditions } from '../support/conditions.ts'
import { startWalletSession, type WalletSession } from '../support/wallet-session.ts'

describe('message receipts', () => {
  let session: WalletSession

  beforeAll(async () => {
    session = await startWalletSession('receipts')
  })
  afterAll(async () => {
    await session?.stop()
  })

  const sendText = async (content: string) => {
    const arrived = session.wallet.nextText((message) => message.content === content)
    const { status, json } = await session.postJson({ type: 'text', connectionId: session.connectionId, content })
    expect(status).toBe(200)
    const id = json.id as string
    expect((await arrived).id).toBe(id)
    await session.statesOf(id, 'sent')
    return id
  }
  const receipt = (messageId: string, state: ReceiptState) =>
    session.wallet.agent.modules.receipts.send(session.walletConnectionId, [{ messageId, state }])

  it('moves a sent message to delivered, then viewed', async () => {
    const id = await sendText('did you get this?')
    await receipt(id, ReceiptState.Received)
    expect(await session.statesOf(id, 'delivered')).toEqual(['created', 'sent', 'delivered'])
    await receipt(id, ReceiptState.Viewed)
    expect(await session.statesOf(id, 'viewed')).toEqual(['created', 'sent', 'delivered', 'viewed'])
    const event = session.receiver.events.find((e) => e.body.messageId === id && e.body.state === 'viewed')!
    expect(event.body).toEqual({
      type: 'message-state-updated',
      messageId: id,
      connectionId: session.connectionId,
      state: 'viewed',
      timestamp: expect.any(Number),
    })
  })

  it('never moves a state back, nor repeats it', async () => {
    const id = await sendText('read me')
    await receipt(id, ReceiptState.Viewed)
    await session.statesOf(id, 'viewed')
    // A late `received` and a repeated `viewed`, then a marker message whose receipt must come after them.
    await receipt(id, ReceiptState.Received)
    await receipt(id, ReceiptState.Viewed)
    const marker = await sendText('marker')
    await receipt(marker, ReceiptState.Received)
    await session.statesOf(marker, 'delivered')
    expect(session.receiver.events.filter((e) => e.body.messageId === id).map((e) => e.body.state)).toEqual(['created', 'sent', 'viewed'])
  })

  it('ignores receipts for messages it never sent', async () => {
    const marker = await sendText('another marker')
    await session.wallet.agent.modules.receipts.send(session.walletConnectionId, [
      { messageId: '5b8a4f0e-8f35-4c53-9d5e-2d8f4a4f3a11', state: ReceiptState.Received },
      { messageId: marker, state: ReceiptState.Received },
    ])
    await session.statesOf(marker, 'delivered')
    expect(session.receiver.events.some((e) => e.body.messageId === '5b8a4f0e-8f35-4c53-9d5e-2d8f4a4f3a11')).toBe(false)
  })

  it('acknowledges every text the wallet sends with a received receipt', async () => {
    const acknowledged = new Set<string>()
    let changed = () => {}
    session.wallet.agent.events.on<MessageReceiptsReceivedEvent>(ReceiptsEventTypes.MessageReceiptsReceived, ({ payload }) => {
      for (const r of payload.receipts) if (r.state === ReceiptState.Received) acknowledged.add(r.messageId)
      changed()
    })
    const ids = await Promise.all(
      ['burst 1', 'burst 2', 'burst 3'].map((text) => session.wallet.sendText(session.walletConnectionId, text)),
    )
    await new Promise<void>((resolve) => {
      changed = () => {
        if (ids.every((id) => acknowledged.has(id))) resolve()
      }
      changed()
    })
    expect(ids.every((id) => acknowledged.has(id))).toBe(true)
  })

  it('sends a received receipt only once the message-received event it reports is stored', async () => {
    const storedAtReceipt = new Map<string, boolean>()
    const checked = conditions(() => `checked: ${[...storedAtReceipt.keys()].join(', ')}`)
    const storedIds = async () => {
      const stored = await session.node.outbox.eventsAfterPosition(0, { topics: ['message-received'] }, 10_000)
      return new Set(stored.map((published) => (published.event as { message: { id: string } }).message.id))
    }
    session.wallet.agent.events.on<MessageReceiptsReceivedEvent>(ReceiptsEventTypes.MessageReceiptsReceived, ({ payload }) => {
      for (const r of payload.receipts) {
        if (r.state !== ReceiptState.Received) continue
        void storedIds().then((ids) => {
          storedAtReceipt.set(r.messageId, ids.has(r.messageId))
          checked.changed()
        })
      }
    })
    const ids = await Promise.all(['stored 1', 'stored 2'].map((text) => session.wallet.sendText(session.walletConnectionId, text)))
    await checked.until(() => ids.every((id) => storedAtReceipt.has(id)))
    expect(ids.map((id) => storedAtReceipt.get(id))).toEqual([true, true])
  })
})
