/**
 * `contextual-menu-update` / `contextual-menu-select` / `contextual-menu-request` end to end
 * over action-menu 1.0 (Aries RFC 0509), with a WalletPeer speaking the same module.
 */
import { DidCommMessageSender, DidCommOutboundMessageContext } from '@credo-ts/didcomm'
import { describe, expect, it } from 'vitest'
import { ActionMenuProblemReportMessage, MenuMessage, PerformMessage } from '../../src/didcomm/protocols/action-menu/index.ts'
import { receivedMessage, useWalletSession } from '../support/wallet-session.ts'
import { expectRejected } from '../support/bad-bodies.ts'

const MENU = {
  type: 'contextual-menu-update',
  title: 'Services',
  description: 'What can I do for you?',
  options: [
    { id: 'opt-balance', title: 'Balance', description: 'Show my balance' },
    { id: 'opt-help', title: 'Help' },
  ],
}

describe('contextual menu (action-menu 1.0)', () => {
  const session = useWalletSession('action-menu')

  it('sends contextual-menu-update as an action menu whose option names are the ids', async () => {
    const inbound = session().wallet.nextInbound(MenuMessage.type.messageTypeUri)
    const id = await session().sendMessage(MENU)
    const { json, connectionId } = await inbound
    expect(connectionId).toBe(session().walletConnectionId)
    expect(json).toMatchObject({
      '@type': 'https://didcomm.org/action-menu/1.0/menu',
      '@id': id,
      title: 'Services',
      description: 'What can I do for you?',
      options: [
        { name: 'opt-balance', title: 'Balance', description: 'Show my balance' },
        { name: 'opt-help', title: 'Help', description: '' },
      ],
    })
    const shown = await session().wallet.contextualMenu(session().walletConnectionId, (record) => record.threadId === id)
    expect(shown.menu?.options.map((option) => option.name)).toEqual(['opt-balance', 'opt-help'])
  })

  it('reports a performed option as contextual-menu-select with the option id', async () => {
    const menu = await session().wallet.contextualMenu(session().walletConnectionId)
    await session().wallet.performContextualMenuOption(session().walletConnectionId, 'opt-help')
    expect(await receivedMessage(session().receiver, 'contextual-menu-select')).toEqual({
      type: 'message-received',
      message: {
        type: 'contextual-menu-select',
        id: expect.any(String),
        connectionId: session().connectionId,
        timestamp: expect.any(Number),
        threadId: menu.threadId,
        selectionId: 'opt-help',
      },
    })
  })

  it('answers a menu-request with the current menu and reports contextual-menu-request', async () => {
    const inbound = session().wallet.nextInbound(MenuMessage.type.messageTypeUri)
    await session().wallet.requestContextualMenu(session().walletConnectionId)
    const request = await receivedMessage(session().receiver, 'contextual-menu-request')
    expect(request).toEqual({
      type: 'message-received',
      message: {
        type: 'contextual-menu-request',
        id: expect.any(String),
        connectionId: session().connectionId,
        timestamp: expect.any(Number),
        threadId: null,
      },
    })
    const { json } = await inbound
    const requestId = (request.message as { id: string }).id
    expect(json).toMatchObject({ '@type': 'https://didcomm.org/action-menu/1.0/menu', '~thread': { thid: requestId }, title: 'Services' })
  })

  it('refuses a perform naming no option of the menu with a problem report, and reports nothing', async () => {
    const menu = await session().wallet.contextualMenu(session().walletConnectionId)
    const problem = session().wallet.nextInbound(ActionMenuProblemReportMessage.type.messageTypeUri)
    const connection = await session().wallet.agent.modules.didcomm.connections.getById(session().walletConnectionId)
    const perform = new PerformMessage({ name: 'opt-unknown', threadId: menu.threadId })
    await session()
      .wallet.agent.dependencyManager.resolve(DidCommMessageSender)
      .sendMessage(new DidCommOutboundMessageContext(perform, { agentContext: session().wallet.agent.context, connection }))
    expect((await problem).json).toMatchObject({ description: { code: 'unknown-option' }, '~thread': { thid: menu.threadId } })
    const selects = session().receiver.events.filter(
      (e) => e.topic === 'message-received' && (e.body.message as { type: string }).type === 'contextual-menu-select',
    )
    expect(selects.map((e) => (e.body.message as { selectionId: string }).selectionId)).toEqual(['opt-help'])
  })

  it('rejects bad contextual-menu-update bodies with a 400 naming the field', async () => {
    await expectRejected(session().postMessage, session().connectionId, [
      ['no title', { ...MENU, title: undefined }, 'title'],
      ['no options', { ...MENU, options: undefined }, 'options'],
      ['option without title', { ...MENU, options: [{ id: 'a' }] }, 'options.0.title'],
      [
        'repeated id',
        {
          ...MENU,
          options: [
            { id: 'a', title: 'A' },
            { id: 'a', title: 'B' },
          ],
        },
        'options.1.id',
      ],
    ])
  })
})
