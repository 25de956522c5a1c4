/**
 * `menu-display` / `menu-select` end to end over question-answer 1.0: agent-node in process,
 * a WalletPeer over WebSocket on loopback, webhooks to an event receiver.
 */
import { QuestionMessage } from '@credo-ts/question-answer'
import { describe, expect, it } from 'vitest'
import { receivedMessage, useWalletSession } from '../support/wallet-session.ts'
import { expectRejected } from '../support/bad-bodies.ts'

const MENU = {
  type: 'menu-display',
  prompt: 'Which colour?',
  menuItems: [
    { id: 'c-red', text: 'Red' },
    { id: 'c-blue', text: 'Blue' },
  ],
}

describe('menu-display and menu-select (question-answer 1.0)', () => {
  const session = useWalletSession('menus')

  it('sends menu-display as a question: prompt as question text, item texts as valid responses, our id as @id', async () => {
    const inbound = session().wallet.nextInbound(QuestionMessage.type.messageTypeUri)
    const id = await session().sendMessage({ ...MENU, threadId: 'earlier-message' })
    const { json, connectionId } = await inbound
    expect(connectionId).toBe(session().walletConnectionId)
    expect(json).toMatchObject({
      '@type': 'https://didcomm.org/questionanswer/1.0/question',
      '@id': id,
      '~thread': { pthid: 'earlier-message' },
      question_text: 'Which colour?',
      valid_responses: [{ text: 'Red' }, { text: 'Blue' }],
    })
    await session().receiver.waitFor((e) => e.topic === 'message-state-updated' && e.body.messageId === id && e.body.state === 'sent')
  })

  it('reports the answer as menu-select carrying the item id, threaded on the menu-display id', async () => {
    const id = await session().sendMessage(MENU)
    const question = await session().wallet.menuQuestion(id)
    await session().wallet.answerMenu(question.id, 'Blue')
    expect(await receivedMessage(session().receiver, 'menu-select')).toEqual({
      type: 'message-received',
      message: {
        type: 'menu-select',
        id: expect.any(String),
        connectionId: session().connectionId,
        timestamp: expect.any(Number),
        threadId: id,
        menuItems: [{ id: 'c-blue' }],
      },
    })
  })

  it('rejects bad menu-display bodies with a 400 naming the field', async () => {
    await expectRejected(session().postMessage, session().connectionId, [
      ['no prompt', { ...MENU, prompt: undefined }, 'prompt'],
      ['no items', { ...MENU, menuItems: [] }, 'menuItems'],
      ['item without id', { ...MENU, menuItems: [{ text: 'Red' }] }, 'menuItems.0.id'],
      [
        'repeated id',
        {
          ...MENU,
          menuItems: [
            { id: 'x', text: 'A' },
            { id: 'x', text: 'B' },
          ],
        },
        'menuItems.1.id',
      ],
      [
        'repeated text',
        {
          ...MENU,
          menuItems: [
            { id: 'a', text: 'Same' },
            { id: 'b', text: 'Same' },
          ],
        },
        'menuItems.1.text',
      ],
    ])
  })
})
