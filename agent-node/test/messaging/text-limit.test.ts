/**
 * One maximum text size end to end (`MAX_TEXT_CHARS`, shared): the admin API refuses a longer
 * text (400 naming `content`), and a longer basic message from a real wallet is dropped with a
 * warning instead of becoming a `message-received` no conversation could store; texts at the
 * limit pass both ways.
 */
import { MAX_TEXT_CHARS } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWalletSession, type WalletSession } from '../support/wallet-session.ts'

describe('the maximum text size', () => {
  let session: WalletSession

  beforeAll(async () => {
    session = await startWalletSession('text-limit')
  })
  afterAll(async () => {
    await session?.stop()
  })

  it('answers 400 naming content for a text longer than MAX_TEXT_CHARS, and sends one at the limit', async () => {
    const tooLong = await session.postJson({ type: 'text', connectionId: session.connectionId, content: 'x'.repeat(MAX_TEXT_CHARS + 1) })
    expect(tooLong.status).toBe(400)
    expect(JSON.stringify(tooLong.json)).toMatch(/"field":"content"/)
    const atLimit = 'y'.repeat(MAX_TEXT_CHARS)
    const arrived = session.wallet.nextText((message) => message.content === atLimit)
    expect((await session.postJson({ type: 'text', connectionId: session.connectionId, content: atLimit })).status).toBe(200)
    await arrived
  })

  it('drops a longer text from the wallet and reports the next one', async () => {
    const received = (content: string) =>
      session.receiver.waitFor(
        (e) => e.topic === 'message-received' && (e.body.message as { content?: string }).content === content,
        30_000,
      )
    await session.wallet.sendText(session.walletConnectionId, 'z'.repeat(MAX_TEXT_CHARS + 1))
    await session.wallet.sendText(session.walletConnectionId, 'a normal text')
    await received('a normal text')
    const atLimit = 'w'.repeat(MAX_TEXT_CHARS)
    await session.wallet.sendText(session.walletConnectionId, atLimit)
    await received(atLimit)
    const texts = session.receiver.events
      .filter((e) => e.topic === 'message-received')
      .map((e) => (e.body.message as { content: string }).content)
    expect(texts.some((content) => content.length > MAX_TEXT_CHARS)).toBe(false)
  })
})
