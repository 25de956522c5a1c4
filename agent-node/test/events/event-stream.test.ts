/**
 * The admin event stream `/v1/events` (a WebSocket on the admin port) on an in-process
 * agent-node, with events published directly: filters by topic and connection, resuming from a
 * cursor after a disconnect (every later event, none twice), live events, and bad queries
 * refused with a 4xx before the upgrade.
 */
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { StreamEventFrame } from '../../src/events/websocket/frames.ts'
import { useTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { dialects } from '../support/temp-databases.ts'
import { conditions } from '../support/conditions.ts'
import { refusedUpgrade } from '../support/refused-upgrade.ts'
import { connectionCompleted as connectionOf, messageState as stateOf, timestampOf as timestampOfEvent } from '../support/events.ts'

const C1 = '66666666-6666-4666-8666-666666666666'
const C2 = '77777777-7777-4777-8777-777777777777'
const timestampOf = (frame: StreamEventFrame) => timestampOfEvent(frame.event)

/** A `/v1/events` client that records frames; `until` waits for a condition on them. */
async function openStream(agent: TestAgentNode, query: string) {
  const frames: StreamEventFrame[] = []
  const { changed, until } = conditions(() => `got ${frames.length} frames`)
  const socket = new WebSocket(`ws://127.0.0.1:${agent.node.adminPort}/v1/events${query}`)
  socket.on('message', (data) => {
    frames.push(StreamEventFrame.parse(JSON.parse(data.toString())))
    changed()
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  return {
    frames,
    until,
    close: () =>
      new Promise<void>((resolve) => {
        socket.once('close', () => resolve())
        socket.close()
      }),
  }
}

describe.each(dialects)('admin event stream /v1/events on %s', (dialect) => {
  const started = useTestAgentNode(dialect)

  it('streams the outbox from a cursor, filtered by topic and connection, then live events', async () => {
    const { events } = started.agent.node
    for (let n = 1; n <= 3; n++) {
      void events.publish(connectionOf(C1))
      void events.publish(stateOf(C1, n))
      void events.publish(stateOf(C2, n))
    }
    await events.drain()

    const stream = await openStream(started.agent, `?topics=message-state-updated&connectionId=${C1}&from=0`)
    await stream.until(() => stream.frames.length === 3)
    expect(stream.frames.map((f) => [f.connectionId, f.seq, timestampOf(f)])).toEqual([
      [C1, 2, 1],
      [C1, 4, 2],
      [C1, 6, 3],
    ])

    await events.publish(stateOf(C2, 4))
    await events.publish(connectionOf(C1))
    await events.publish(stateOf(C1, 4))
    await stream.until(() => stream.frames.length === 4)
    expect(stream.frames.map(timestampOf)).toEqual([1, 2, 3, 4])
    const cursors = stream.frames.map((f) => f.cursor)
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b))
    await stream.close()
  })

  it('resumes after a disconnect from the last cursor processed: every later event, none twice', async () => {
    const C3 = '88888888-8888-4888-8888-888888888888'
    const { events } = started.agent.node
    const first = await openStream(started.agent, `?connectionId=${C3}`)
    for (let n = 1; n <= 3; n++) await events.publish(stateOf(C3, n))
    await first.until(() => first.frames.length === 3)
    const cursor = first.frames[1]!.cursor // processed two, the third was in flight when it went away
    await first.close()

    for (let n = 4; n <= 6; n++) await events.publish(stateOf(C3, n))
    const again = await openStream(started.agent, `?connectionId=${C3}&from=${cursor}`)
    await events.publish(stateOf(C3, 7))
    await again.until(() => again.frames.length === 5)
    expect(again.frames.map(timestampOf)).toEqual([3, 4, 5, 6, 7])
    expect(again.frames.map((f) => f.seq)).toEqual([3, 4, 5, 6, 7])
    await again.close()
  })

  it('without from, sends only events from now on', async () => {
    const C4 = '99999999-9999-4999-8999-999999999999'
    await started.agent.node.events.publish(stateOf(C4, 1))
    const stream = await openStream(started.agent, `?connectionId=${C4}`)
    await started.agent.node.events.publish(stateOf(C4, 2))
    await stream.until(() => stream.frames.length === 1)
    expect(stream.frames.map(timestampOf)).toEqual([2])
    await stream.close()
  })

  it('refuses bad queries and other paths before the upgrade, and tells a plain GET to upgrade', async () => {
    const badTopic = await refusedUpgrade(started.agent, '/v1/events?topics=message-received,nope')
    expect(badTopic.status).toBe(400)
    expect(badTopic.body.error).toBe('validation_error')
    expect(badTopic.body.issues).toContainEqual(expect.objectContaining({ field: 'topics.1' }))
    for (const [query, field] of [
      ['connectionId=abc', 'connectionId'],
      ['from=-1', 'from'],
      ['from=soon', 'from'],
      ['since=1', ''],
    ] as const) {
      const refused = await refusedUpgrade(started.agent, `/v1/events?${query}`)
      expect(refused.status, query).toBe(400)
      if (field) expect(refused.body.issues, query).toContainEqual(expect.objectContaining({ field }))
    }
    expect((await refusedUpgrade(started.agent, '/v1/other')).status).toBe(404)

    const plain = await started.agent.admin('/v1/events')
    expect(plain.status).toBe(426)
    expect(await plain.json()).toMatchObject({ error: 'upgrade_required' })
  })
})
