/**
 * Message delivery states end to end between two real agent-nodes on loopback: A sends through
 * its admin API to B (which has an HTTP endpoint); `message-state-updated` goes created -> sent
 * while B is up, created -> errored once B is gone.
 */
import { DidCommConnectionEventTypes, DidCommDidExchangeState, type DidCommConnectionStateChangedEvent } from '@credo-ts/didcomm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEventReceiver, type EventReceiver } from '../../../test/support/event-receiver.ts'
import { startTestAgentNode, type TestAgentNode } from '../support/test-agent-node.ts'

describe('message delivery states', () => {
  let receiver: EventReceiver
  let a: TestAgentNode
  let b: TestAgentNode
  let connectionId: string

  beforeAll(async () => {
    receiver = await startEventReceiver()
    a = await startTestAgentNode('agent-a', { EVENTS_BASE_URL: receiver.url }, 'http')
    // B announces only HTTP, so A reaches it by POSTing and fails once it is gone.
    b = await startTestAgentNode('agent-b', {}, 'http')
    const completed = new Promise<string>((resolve) => {
      a.node.agent.events.on<DidCommConnectionStateChangedEvent>(DidCommConnectionEventTypes.DidCommConnectionStateChanged, ({ payload }) => {
        if (payload.connectionRecord.state === DidCommDidExchangeState.Completed) resolve(payload.connectionRecord.id)
      })
    })
    const { url } = (await (await fetch(`${a.admin}/v1/invitation`)).json()) as { url: string }
    await b.node.agent.modules.didcomm.oob.receiveInvitationFromUrl(url, { label: 'agent-b' })
    connectionId = await completed
  })

  afterAll(async () => {
    await a?.stop()
    await b?.stop()
    await receiver?.close()
  })

  const send = async (content: string) => {
    const response = await a.postMessage({ type: 'text', connectionId, content })
    expect(response.status).toBe(200)
    return ((await response.json()) as { id: string }).id
  }
  const statesOf = async (messageId: string, last: string) => {
    await receiver.waitFor((e) => e.topic === 'message-state-updated' && e.body.messageId === messageId && e.body.state === last)
    return receiver.events.filter((e) => e.body.messageId === messageId).map((e) => e.body.state)
  }

  it('reports created then sent when the peer takes the message', async () => {
    const id = await send('are you there?')
    expect(await statesOf(id, 'sent')).toEqual(['created', 'sent'])
  })

  it('reports created then errored when the peer cannot be reached', async () => {
    await b.stop()
    const id = await send('anyone?')
    expect(await statesOf(id, 'errored')).toEqual(['created', 'errored'])
  })
})
