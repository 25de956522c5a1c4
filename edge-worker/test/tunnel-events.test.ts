import { env } from 'cloudflare:workers'
import { MAX_EVENT_BYTES } from '@parley/shared/tunnel'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { messageState, TestAgent, textMessage } from './support/agent.ts'
import { conversationRows } from './support/storage.ts'

describe('tunnel events', () => {
  let agent: TestAgent
  beforeEach(async () => {
    agent = await TestAgent.connect()
  })
  afterEach(async () => {
    await agent.close()
  })

  it('routes an event to the Conversation object of its connection, stores it, then acknowledges it', async () => {
    const connectionId = crypto.randomUUID()
    const frame = agent.sendEvent(messageState(connectionId), 1)
    expect(await agent.acks(frame.id)).toEqual([{ kind: 'ack', id: frame.id }])

    expect(await conversationRows(connectionId, 'SELECT connection_id FROM conversation')).toEqual([{ connection_id: connectionId }])
    const stored = await conversationRows<{ id: string; seq: number; type: string; body: string }>(
      connectionId,
      'SELECT id, seq, type, body FROM events',
    )
    expect(stored.map((row) => ({ ...row, body: JSON.parse(row.body) }))).toEqual([
      { id: frame.id, seq: 1, type: 'message-state-updated', body: frame.event },
    ])
    expect(await conversationRows(crypto.randomUUID(), 'SELECT id FROM events')).toEqual([])
  })

  it('acknowledges a repeated event id again but applies it once', async () => {
    const connectionId = crypto.randomUUID()
    const event = textMessage(connectionId, 'only once')
    const first = agent.sendEvent(event, 1)
    await agent.acks(first.id)
    agent.sendEvent(event, 1, first.id)
    expect(await agent.acks(first.id, 2)).toHaveLength(2)

    expect(await conversationRows(connectionId, 'SELECT id FROM events')).toEqual([{ id: first.id }])
    expect(await conversationRows(connectionId, `SELECT content FROM turns WHERE role = 'user'`)).toEqual([{ content: 'only once' }])
  })

  it('applies the events of one connection in sequence order, connections interleaved', async () => {
    // Pipelined frames go to the bundled Worker (production build): in the main test Worker, the
    // pool's Durable Object wrapper starts each WebSocket handler after an asynchronous module
    // import, so handlers begin out of arrival order there, which the runtime itself never does.
    const bundled = await TestAgent.connect({ worker: env.WITHOUT_LLM })
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()]
    const sent = new Map<string, string[]>([
      [a, []],
      [b, []],
    ])
    for (let seq = 1; seq <= 20; seq++) {
      for (const [connectionId, ids] of sent) ids.push(bundled.sendEvent(messageState(connectionId), seq).id)
    }
    const all = [...sent.values()].flat()
    await Promise.all(all.map((id) => bundled.acks(id)))

    const acked = bundled.frames.filter((frame) => frame.kind === 'ack').map((frame) => frame.id)
    for (const ids of sent.values()) {
      // Each ack is sent once its event is stored, and a connection's events are stored one at a time.
      expect(acked.filter((id) => ids.includes(id))).toEqual(ids)
    }
    await bundled.close()
  })

  it('rejects malformed frames without answering them, and keeps the socket and the object working', async () => {
    const connectionId = crypto.randomUUID()
    const mismatched = {
      kind: 'event',
      id: crypto.randomUUID(),
      connectionId: crypto.randomUUID(),
      seq: 1,
      event: messageState(connectionId),
    }
    const invalidEvent = { kind: 'event', id: crypto.randomUUID(), connectionId, seq: 1, event: { type: 'mystery' } }
    agent.sendRaw('this is not JSON')
    agent.sendRaw(JSON.stringify({ kind: 'event' }))
    agent.sendRaw(JSON.stringify(invalidEvent))
    agent.sendRaw(JSON.stringify(mismatched))

    const valid = agent.sendEvent(messageState(connectionId), 1)
    await agent.acks(valid.id)
    expect(agent.frames.filter((frame) => frame.kind === 'ack')).toEqual([{ kind: 'ack', id: valid.id }])
    expect(agent.invalid).toEqual([])
    expect(await conversationRows(connectionId, 'SELECT id FROM events')).toEqual([{ id: valid.id }])
    expect(await conversationRows(mismatched.connectionId, 'SELECT id FROM events')).toEqual([])
  })

  it('rejects an event too large to store, for agent-node to dead-letter, and goes on with the next ones', async () => {
    const connectionId = crypto.randomUUID()
    const huge = agent.sendEvent(textMessage(connectionId, 'x'.repeat(MAX_EVENT_BYTES + 1)), 1)
    const next = agent.sendEvent(textMessage(connectionId, 'after the huge one'), 2)
    expect(await agent.next((frame) => frame.kind === 'reject' && frame.id === huge.id)).toEqual({
      kind: 'reject',
      id: huge.id,
      reason: expect.stringMatching(/more than the 1000000 a conversation stores/),
    })
    await agent.acks(next.id)
    expect(agent.frames.filter((frame) => frame.kind === 'ack' && frame.id === huge.id)).toEqual([])
    expect(await conversationRows(connectionId, 'SELECT id FROM events')).toEqual([{ id: next.id }])
  })
})
