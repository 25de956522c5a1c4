/**
 * Message delivery states end to end between two real agent-nodes on loopback: A sends through
 * its admin API to B (which has an HTTP endpoint); `message-state-updated` goes created -> sent
 * while B is up, created -> errored once B is gone.
 */
import {
  DidCommBasicMessageEventTypes,
  DidCommConnectionEventTypes,
  DidCommDidExchangeState,
  type DidCommBasicMessageStateChangedEvent,
  type DidCommConnectionStateChangedEvent,
} from '@credo-ts/didcomm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'

/** Resolves once `condition` holds, checking as B's events arrive (every 20 ms). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('message delivery states', () => {
  let receiver: EventReceiver
  let a: TestAgentNode
  let b: TestAgentNode
  let connectionId: string

  beforeAll(async () => {
    receiver = await startEventReceiver()
    a = await startTestAgentNode({ EVENTS_BASE_URL: receiver.url }, { label: 'agent-a', endpoint: 'http' })
    // B announces only HTTP, so A reaches it by POSTing and fails once it is gone.
    b = await startTestAgentNode({}, { label: 'agent-b', endpoint: 'http' })
    const completed = new Promise<string>((resolve) => {
      a.node.agent.events.on<DidCommConnectionStateChangedEvent>(
        DidCommConnectionEventTypes.DidCommConnectionStateChanged,
        ({ payload }) => {
          if (payload.connectionRecord.state === DidCommDidExchangeState.Completed) resolve(payload.connectionRecord.id)
        },
      )
    })
    const { url } = (await (await fetch(`${a.adminUrl}/v1/invitation`)).json()) as { url: string }
    await b.node.agent.modules.didcomm.oob.receiveInvitationFromUrl(url, { label: 'agent-b' })
    connectionId = await completed
  })

  afterAll(async () => {
    await a?.close()
    await b?.close()
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

  it('sends once per Idempotency-Key: a retry answers the same id, another body with the key is 422', async () => {
    const received: string[] = []
    b.node.agent.events.on<DidCommBasicMessageStateChangedEvent>(
      DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged,
      ({ payload }) => {
        received.push(payload.message.content)
      },
    )
    const key = crypto.randomUUID()
    const post = (content: string) =>
      fetch(`http://127.0.0.1:${a.node.adminPort}/v1/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ type: 'text', connectionId, content }),
      })
    const [first, second] = await Promise.all([post('only once'), post('only once')])
    const ids = [(await first.json()) as { id: string }, (await second.json()) as { id: string }].map((r) => r.id)
    expect(ids[0]).toBe(ids[1])
    expect([first.headers.get('idempotent-replayed'), second.headers.get('idempotent-replayed')].sort()).toEqual(['true', null].sort())
    const third = await post('only once')
    expect(((await third.json()) as { id: string }).id).toBe(ids[0])
    expect(await statesOf(ids[0]!, 'sent')).toEqual(['created', 'sent'])

    const reused = await post('something else')
    expect(reused.status).toBe(422)
    expect(await reused.json()).toMatchObject({ error: 'idempotency_key_reused' })
    const marker = await send('after the retries')
    await statesOf(marker, 'sent')
    await until(() => received.includes('after the retries'))
    expect(received.filter((c) => c === 'only once')).toHaveLength(1)
  })

  it('gives an Idempotency-Key back when its message is refused, so the corrected request sends', async () => {
    const key = crypto.randomUUID()
    const post = (target: string) =>
      fetch(`http://127.0.0.1:${a.node.adminPort}/v1/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ type: 'text', connectionId: target, content: 'to the right connection' }),
      })
    const refused = await post(crypto.randomUUID())
    expect(refused.status).toBe(404)
    const corrected = await post(connectionId)
    expect(corrected.status).toBe(200)
    expect(corrected.headers.get('idempotent-replayed')).toBeNull()
    const { id } = (await corrected.json()) as { id: string }
    expect(await statesOf(id, 'sent')).toEqual(['created', 'sent'])
  })

  it('delivers the messages of one connection in the order they were accepted', async () => {
    const received: string[] = []
    b.node.agent.events.on<DidCommBasicMessageStateChangedEvent>(
      DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged,
      ({ payload }) => {
        if (payload.message.content.startsWith('in order ')) received.push(payload.message.content)
      },
    )
    const contents = Array.from({ length: 8 }, (_, i) => `in order ${i}`)
    // accepted one after another, as a controller sends a greeting and then a prompt
    for (const content of contents) await send(content)
    await until(() => received.length === contents.length)
    expect(received).toEqual(contents)
  })

  it('reports created then errored when the peer cannot be reached', async () => {
    await b.close()
    const id = await send('anyone?')
    expect(await statesOf(id, 'errored')).toEqual(['created', 'errored'])
  })
})
