/**
 * `/v1/event-subscriptions` on an in-process agent-node, delivering over HTTP to real receivers
 * on loopback (OUTBOUND_ALLOWED_NETWORKS = loopback), with events published directly (unit scope
 * for filters and cursors): topic and connection filters, a subscription's own cursor (it starts
 * at its creation, survives a restart, stops on delete), and bad input refused with a clear 4xx.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { startEventReceiver, type EventReceiver, type ReceivedEvent } from '../support/event-receiver.ts'
import type { Subscription } from '../../src/events/subscriptions/model.ts'
import { subscriberName } from '../../src/events/subscriptions/service.ts'
import { freePort } from '@parley/shared/testing/free-port'
import { useTestAgentNode } from '../support/agent-node.ts'
import { dialects } from '../support/temp-databases.ts'
import { connectionCompleted as connectionOf, messageState as stateOf, nextRecord } from '../support/events.ts'

const C1 = '11111111-1111-4111-8111-111111111111'
const C2 = '22222222-2222-4222-8222-222222222222'

/** What a receiver got, as `[connectionId, topic, timestamp?]` in arrival order. */
const summary = (events: ReceivedEvent[]) => events.map((e) => [e.body.connectionId, e.topic, e.body.timestamp ?? null])

describe.each(dialects)('event subscriptions over HTTP on %s', (dialect) => {
  const running = useTestAgentNode(dialect, { ENABLE_PUBLIC_API_EXPLORER: 'true' })
  const receivers: EventReceiver[] = []

  const subscribe = (body: Record<string, unknown>) => running.agent.subscribe(body)
  async function receiver(): Promise<EventReceiver> {
    const started = await startEventReceiver()
    receivers.push(started)
    return started
  }

  afterAll(async () => {
    for (const r of receivers) await r.close()
  })

  it('delivers only the topics and the connection a subscription asks for, each connection in order', async () => {
    const [byTopic, byConnection, everything] = [await receiver(), await receiver(), await receiver()]
    const topicSub = await subscribe({ url: byTopic.url, topics: ['message-state-updated'] })
    expect(topicSub).toMatchObject({ url: byTopic.url, delivery: 'http', topics: ['message-state-updated'], connectionId: null })
    await subscribe({ url: `${byConnection.url}/`, connectionId: C1 })
    await subscribe({ url: everything.url })

    const { events } = running.agent.node
    for (let n = 1; n <= 3; n++) {
      void events.publish(connectionOf(C1))
      void events.publish(stateOf(C1, n))
      void events.publish(connectionOf(C2))
      void events.publish(stateOf(C2, n))
    }
    // The last event of each connection: once it is in, everything before it in that connection was decided.
    await events.publish(stateOf(C1, 4))
    await events.publish(stateOf(C2, 4))
    const lastOf = (r: EventReceiver, connectionId: string) =>
      r.waitFor((e) => e.body.connectionId === connectionId && e.body.timestamp === 4)
    await Promise.all([lastOf(byTopic, C1), lastOf(byTopic, C2), lastOf(byConnection, C1), lastOf(everything, C1), lastOf(everything, C2)])

    const only = (r: EventReceiver, connectionId: string) => summary(r.events.filter((e) => e.body.connectionId === connectionId))
    const states = (c: string) => [1, 2, 3, 4].map((n) => [c, 'message-state-updated', n])
    const all = (c: string) => [
      ...[1, 2, 3].flatMap((n) => [
        [c, 'connection-state-updated', null],
        [c, 'message-state-updated', n],
      ]),
      [c, 'message-state-updated', 4],
    ]
    expect(only(byTopic, C1)).toEqual(states(C1))
    expect(only(byTopic, C2)).toEqual(states(C2))
    expect(byTopic.events).toHaveLength(8)
    expect(summary(byConnection.events)).toEqual(all(C1))
    expect(only(everything, C1)).toEqual(all(C1))
    expect(only(everything, C2)).toEqual(all(C2))
    expect(everything.events).toHaveLength(14)
    // Each POST names the event and its place in its connection.
    const first = everything.events[0]!
    expect(first.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(first.headers['x-parley-event-seq']).toBe('1')
  })

  it('keeps its own cursor: starts at its creation, survives a restart, and delete stops delivery', async () => {
    const C3 = '33333333-3333-4333-8333-333333333333'
    const before = await running.agent.node.events.publish(stateOf(C3, 0))
    const r = await receiver()
    const sub = await subscribe({ url: r.url, connectionId: C3 })
    // Acknowledged in the database, not only received: otherwise the restart would abort the
    // attempt and deliver it again (at least once), which the receiver would dedupe by id.
    const second = nextRecord(
      running.agent.node,
      (r) => r.subscriber === subscriberName(sub.id) && r.status === 'acknowledged' && r.event.seq === 3,
    )
    await running.agent.node.events.publish(stateOf(C3, 1))
    await running.agent.node.events.publish(stateOf(C3, 2))
    await second

    await running.agent.restart()
    expect(running.agent.node.delivery.subscriberNames).toContain(subscriberName(sub.id))
    const listed = (await (await running.agent.admin('/v1/event-subscriptions')).json()) as Subscription[]
    expect(listed.map((s) => s.id)).toContain(sub.id)
    expect(await (await running.agent.admin(`/v1/event-subscriptions/${sub.id}`)).json()).toEqual(sub)

    await running.agent.node.events.publish(stateOf(C3, 3))
    await r.waitFor((e) => e.body.timestamp === 3)
    // Nothing from before the subscription, nothing twice after the restart.
    expect(r.events.map((e) => [e.body.timestamp, e.headers['x-parley-event-seq']])).toEqual([
      [1, '2'],
      [2, '3'],
      [3, '4'],
    ])
    expect(before.seq).toBe(1)

    const deleted = await running.agent.admin(`/v1/event-subscriptions/${sub.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(204)
    expect(running.agent.node.delivery.subscriberNames).not.toContain(subscriberName(sub.id))
    expect((await running.agent.admin(`/v1/event-subscriptions/${sub.id}`)).status).toBe(404)
    expect((await running.agent.admin(`/v1/event-subscriptions/${sub.id}`, { method: 'DELETE' })).status).toBe(404)
    // A subscription still running sees the next event; the deleted one does not.
    const control = await receiver()
    await subscribe({ url: control.url, connectionId: C3 })
    await running.agent.node.events.publish(stateOf(C3, 5))
    await control.waitFor((e) => e.body.timestamp === 5)
    expect(r.events).toHaveLength(3)
  }, 120_000)

  it('accepts a URL nothing listens on (it is not called at creation) and dead-letters once retries are used up', async () => {
    const C4 = '44444444-4444-4444-8444-444444444444'
    const sub = await subscribe({ url: `http://127.0.0.1:${await freePort()}/hooks`, connectionId: C4 })
    const dead = nextRecord(running.agent.node, (r) => r.subscriber === subscriberName(sub.id) && r.status === 'dead-lettered')
    await running.agent.node.events.publish(stateOf(C4, 1))
    await dead
    const [letter] = await running.agent.node.outbox.listDeadLetters({ subscriber: subscriberName(sub.id), limit: 10 })
    expect(letter).toMatchObject({ connectionId: C4, seq: 1, reason: 'exhausted', attempts: 3 })
  })

  it('refuses malformed bodies and URLs it must not call with a 400 naming the field', async () => {
    const post = (body: unknown) => running.agent.admin('/v1/event-subscriptions', { body })
    const fieldsOf = async (response: Response) => {
      expect(response.status).toBe(400)
      const body = (await response.json()) as { error: string; message: string; issues: { field: string; message: string }[] }
      expect(body.error).toBe('validation_error')
      return body.issues
    }
    expect(await fieldsOf(await post({ topics: ['message-received'] }))).toContainEqual(expect.objectContaining({ field: 'url' }))
    expect(await fieldsOf(await post({ url: 'ftp://127.0.0.1/x' }))).toContainEqual(expect.objectContaining({ field: 'url' }))
    expect(await fieldsOf(await post({ url: 'not a url' }))).toContainEqual(expect.objectContaining({ field: 'url' }))
    expect(await fieldsOf(await post({ url: 'http://127.0.0.1:9/hooks?token=x' }))).toContainEqual(
      expect.objectContaining({ field: 'url', message: expect.stringContaining('no query') }),
    )
    expect(await fieldsOf(await post({ url: 'http://127.0.0.1:9', topics: ['nope'] }))).toContainEqual(
      expect.objectContaining({ field: 'topics.0' }),
    )
    expect(await fieldsOf(await post({ url: 'http://127.0.0.1:9', topics: [] }))).toContainEqual(
      expect.objectContaining({ field: 'topics' }),
    )
    expect(await fieldsOf(await post({ url: 'http://127.0.0.1:9', connectionId: 'abc' }))).toContainEqual(
      expect.objectContaining({ field: 'connectionId' }),
    )
    expect(await fieldsOf(await post({ url: 'http://127.0.0.1:9', secret: 'x' }))).toHaveLength(1)

    const notJson = await running.agent.admin('/v1/event-subscriptions', { rawBody: '{"url":' })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toMatchObject({ error: 'malformed_json' })

    // Refused by the outbound guard: private, link-local and unresolvable hosts.
    for (const url of ['http://10.1.2.3/hooks', 'http://169.254.169.254/latest', 'ws://192.168.1.10/events', 'https://[fd00::1]/x']) {
      const [issue] = await fieldsOf(await post({ url }))
      expect(issue).toMatchObject({ field: 'url', message: expect.stringContaining('not in OUTBOUND_ALLOWED_NETWORKS') })
    }
    const [unresolvable] = await fieldsOf(await post({ url: 'http://parley-no-such-host.invalid/hooks' }))
    expect(unresolvable).toMatchObject({ field: 'url', message: expect.stringContaining('does not resolve') })

    expect((await running.agent.admin('/v1/event-subscriptions/not-a-uuid')).status).toBe(400)
    expect((await running.agent.admin(`/v1/event-subscriptions/${crypto.randomUUID()}`)).status).toBe(404)
    const listed = (await (await running.agent.admin('/v1/event-subscriptions')).json()) as Subscription[]
    expect(listed.length).toBeGreaterThan(0)
    expect(listed.some((s) => /10\.1\.2\.3|169\.254|192\.168|fd00|invalid/.test(s.url))).toBe(false)
  })

  it('documents the subscription routes and the event stream in the OpenAPI document', async () => {
    const document = (await (await running.agent.admin('/api/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> }
    expect(Object.keys(document.paths['/v1/event-subscriptions']!).sort()).toEqual(['get', 'post'])
    expect(Object.keys(document.paths['/v1/event-subscriptions/{subscription_id}']!).sort()).toEqual(['delete', 'get'])
    expect(JSON.stringify(document.paths['/v1/events'])).toContain('connectionId')
  })
})
