/**
 * WebSocket subscriptions (the agent dials the subscriber) on an in-process agent-node, with
 * events from real DIDComm activity: a Credo wallet peer connects over WebSocket on loopback and
 * sends texts. The subscriber goes away (once right after applying an event but before acking
 * it, then entirely) while the wallet keeps talking, and comes back: every event arrives, in
 * order per connection, and a receiver that dedupes by id applies each exactly once.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { AgentEvent } from '@parley/shared'
import { subscriberName } from '../../src/events/subscriptions/service.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'
import { messageState } from '../support/events.ts'
import { dialects } from '../support/temp-databases.ts'
import { startWsSubscriber, type Answer, type WsSubscriber } from '../support/ws-subscriber.ts'

const textOf = (event: AgentEvent) =>
  event.type === 'message-received' && event.message.type === 'text' ? event.message.content : undefined

describe.each(dialects)('event subscriptions over WebSocket on %s', (dialect) => {
  let wallet: WalletPeer
  let walletConnectionId: string
  let connectionId: string
  const subscribers: WsSubscriber[] = []

  const running = useTestAgentNode(dialect, {}, async (agent) => {
    wallet = await WalletPeer.create({ label: 'subscriber test wallet', logger: createLogger('silent', 'wallet') })
    const connected = await connectWallet(agent.node, agent.adminUrl, wallet)
    connectionId = connected.connectionId
    walletConnectionId = connected.walletConnectionId
  })
  const subscribe = (body: Record<string, unknown>) => running.agent.subscribe(body)

  afterAll(async () => {
    await wallet?.stop()
    for (const s of subscribers) await s.stop()
  })

  it('resumes a subscriber that disconnects: every event, in order, applied once', async () => {
    const texts = Array.from({ length: 8 }, (_, i) => `text ${i + 1}`)
    // Applies "text 4" and drops the socket before acking it, the first time it comes.
    const subscriber = await startWsSubscriber(
      (frame, deliveries): Answer => (textOf(frame.event) === 'text 4' && deliveries === 1 ? 'drop' : 'ack'),
    )
    subscribers.push(subscriber)
    const sub = await subscribe({ url: subscriber.url, topics: ['message-received'], connectionId })
    expect(sub).toMatchObject({ delivery: 'websocket', topics: ['message-received'], connectionId })
    await subscriber.until(() => subscriber.connections === 1)

    for (const text of texts.slice(0, 4)) await wallet.sendText(walletConnectionId, text)
    await subscriber.until(() => subscriber.connections === 2 && subscriber.applied.length === 4)

    // The subscriber goes away entirely; the wallet keeps talking; the events wait in the outbox.
    await subscriber.stop()
    const stored = new Promise<void>((resolve) => {
      const off = running.agent.node.events.onStored(() => {
        void running.agent.node.outbox.eventsAfterPosition(0, { topics: ['message-received'], connectionId }, 100).then((events) => {
          if (events.length < texts.length) return
          off()
          resolve()
        })
      })
    })
    for (const text of texts.slice(4)) await wallet.sendText(walletConnectionId, text)
    await stored

    await subscriber.listen()
    await subscriber.until(() => subscriber.applied.length === texts.length)

    expect(subscriber.applied.map((f) => textOf(f.event))).toEqual(texts)
    expect(subscriber.applied.map((f) => f.seq)).toEqual([...subscriber.applied.map((f) => f.seq)].sort((a, b) => a - b))
    expect(new Set(subscriber.applied.map((f) => f.connectionId))).toEqual(new Set([connectionId]))
    // "text 4" came twice with the same id (its ack was lost), and was applied once.
    const fourth = subscriber.received.filter((f) => textOf(f.event) === 'text 4')
    expect(fourth).toHaveLength(2)
    expect(fourth[1]!.id).toBe(fourth[0]!.id)
    expect(subscriber.received.length).toBeGreaterThanOrEqual(texts.length + 1)
    // Each frame carries the outbox position as its cursor, growing with seq.
    for (const frame of subscriber.applied) expect(frame.cursor).toBeGreaterThan(0)

    expect((await running.agent.admin(`/v1/event-subscriptions/${sub.id}`, { method: 'DELETE' })).status).toBe(204)
  }, 120_000)

  it('dead-letters an event the subscriber rejects and goes on with the next', async () => {
    const subscriber = await startWsSubscriber((frame) =>
      frame.event.type === 'message-state-updated' && frame.event.timestamp === 2 ? 'reject' : 'ack',
    )
    subscribers.push(subscriber)
    const C = '55555555-5555-4555-8555-555555555555'
    const sub = await subscribe({ url: subscriber.url, connectionId: C })
    for (let n = 1; n <= 3; n++) {
      await running.agent.node.events.publish(messageState(C, n))
    }
    await subscriber.until(() => subscriber.applied.length === 2)
    expect(subscriber.applied.map((f) => f.seq)).toEqual([1, 3])
    const [letter] = await running.agent.node.outbox.listDeadLetters({ subscriber: subscriberName(sub.id), limit: 10 })
    expect(letter).toMatchObject({ connectionId: C, seq: 2, reason: 'rejected', attempts: 1 })
    expect(letter!.lastError).toContain('not for me')
  })
})
