/**
 * `terminate-connection` end to end, both directions, over DID Rotate 1.0 `hangup`: the
 * connection then reports `terminated` (record view and `connection-state-updated`) and
 * `POST /v1/message` to it answers 410.
 */
import { DidCommHangupMessage } from '@credo-ts/didcomm'
import { describe, expect, it } from 'vitest'
import { receivedMessage, useWalletSession } from '../support/wallet-session.ts'
import { expectRejected } from '../support/bad-bodies.ts'

describe('terminate-connection (DID Rotate 1.0 hangup)', () => {
  const session = useWalletSession('terminate')

  const terminatedEvent = (connectionId: string) =>
    session().receiver.waitFor(
      (e) => e.topic === 'connection-state-updated' && e.body.connectionId === connectionId && e.body.state === 'terminated',
    )

  const expectTerminated = async (connectionId: string) => {
    const view = (await (await fetch(`http://127.0.0.1:${session().node.adminPort}/v1/connections/${connectionId}`)).json()) as {
      state: string
    }
    expect(view.state).toBe('terminated')
    const response = await session().postMessage({ connectionId, type: 'text', content: 'still there?' })
    expect(response.status).toBe(410)
    expect(await response.json()).toMatchObject({ error: 'connection_terminated', message: expect.stringContaining('terminated') })
  }

  it('hangs up when the controller sends terminate-connection', async () => {
    const inbound = session().wallet.nextInbound(DidCommHangupMessage.type.messageTypeUri)
    const id = await session().sendMessage({ type: 'terminate-connection' })
    const { json, connectionId } = await inbound
    expect(connectionId).toBe(session().walletConnectionId)
    expect(json).toMatchObject({ '@type': 'https://didcomm.org/did-rotate/1.0/hangup', '@id': id })
    const walletSide = await session().wallet.hungUpBy(session().walletConnectionId)
    expect(walletSide.theirDid).toBeUndefined()
    expect((await terminatedEvent(session().connectionId)).body).toEqual({
      type: 'connection-state-updated',
      connectionId: session().connectionId,
      invitationId: expect.any(String),
      state: 'terminated',
    })
    await expectTerminated(session().connectionId)
  })

  it('reports the wallet hanging up as terminate-connection and connection state terminated', async () => {
    const { connectionId, walletConnectionId } = await session().connect()
    await session().wallet.hangUp(walletConnectionId)
    expect(await receivedMessage(session().receiver, 'terminate-connection')).toEqual({
      type: 'message-received',
      message: { type: 'terminate-connection', id: expect.any(String), connectionId, timestamp: expect.any(Number), threadId: null },
    })
    await terminatedEvent(connectionId)
    await expectTerminated(connectionId)
  })

  it('rejects bad terminate-connection bodies with a 400 naming the field', async () => {
    await expectRejected(session().postMessage, session().connectionId, [
      ['connection id not a UUID', { type: 'terminate-connection', connectionId: 'conn-1' }, 'connectionId'],
      ['empty thread id', { type: 'terminate-connection', threadId: '' }, 'threadId'],
    ])
  })
})
