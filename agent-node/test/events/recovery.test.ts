/**
 * Start-up recovery (`src/events/recovery.ts`) on a real agent-node (real SQLite, a WalletPeer
 * connected over WebSocket). The crash window "Credo saved the record, the event was never
 * written" is made exactly: the records are written through their repositories, which store
 * them without the state-changed events the Credo bridge listens to, as if the process had died
 * right after the save. After a restart each lost event is in the outbox exactly once; a second
 * restart adds nothing. Each start compares only what changed since the checkpoint the previous
 * one left (issue 16): the test counts the outbox rows it read.
 */
import { randomUUID } from 'node:crypto'
import {
  DidCommBasicMessageRecord,
  DidCommBasicMessageRepository,
  DidCommBasicMessageRole,
  DidCommConnectionRepository,
} from '@credo-ts/didcomm'
import type { AgentEvent } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentNode } from '../../src/app.ts'
import type { PublishedEvent } from '../../src/events/outbox/store.ts'
import { createLogger } from '../../src/logging/index.ts'
import { sentMessageRepository } from '../../src/messaging/SentMessageRecord.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'

/** Every event in the outbox, oldest first. */
async function outboxEvents(node: AgentNode): Promise<PublishedEvent[]> {
  return node.outbox.eventsAfterPosition(0, {}, 100_000)
}

/** Resolves with the next event stored that matches `predicate`. */
function storedEvent(node: AgentNode, predicate: (event: AgentEvent) => boolean): Promise<PublishedEvent> {
  return new Promise((resolve) => {
    const stop = node.events.onStored((events) => {
      const match = events.find((e) => predicate(e.event))
      if (!match) return
      stop()
      resolve(match)
    })
  })
}

const bodies = (events: PublishedEvent[]): AgentEvent[] => events.map((e) => e.event)

describe('start-up recovery of events lost between a state change and the outbox write', () => {
  let agent: TestAgentNode
  let wallet: WalletPeer
  let connectionId: string
  let walletConnectionId: string

  beforeAll(async () => {
    agent = await startTestAgentNode()
    wallet = await WalletPeer.create({ label: 'recovery-wallet', logger: createLogger('silent', 'wallet') })
    const connected = await connectWallet(agent.node, agent.adminUrl, wallet)
    connectionId = connected.connectionId
    walletConnectionId = connected.walletConnectionId
  }, 120_000)

  afterAll(async () => {
    await wallet?.stop()
    await agent?.close()
  })

  it('publishes each lost event once after a restart, and nothing on the next restart', async () => {
    // A message the controller sends: `created` then `sent` are reported live.
    const sent = await agent.admin('/v1/message', { body: { connectionId, type: 'text', content: 'hello' } })
    expect(sent.status).toBe(200)
    const { id: sentId } = (await sent.json()) as { id: string }
    await agent.node.messages.drain()
    // A message the wallet sends, reported live: recovery must not report it again.
    const live = storedEvent(
      agent.node,
      (e) => e.type === 'message-received' && e.message.type === 'text' && e.message.content === 'reported live',
    )
    await wallet.sendText(walletConnectionId, 'reported live')
    const liveId = ((await live).event as Extract<AgentEvent, { type: 'message-received' }>).message.id

    // The crash window, three times: each record is stored, its event is not.
    const { agent: credo } = agent.node
    const lostId = randomUUID()
    await credo.dependencyManager.resolve(DidCommBasicMessageRepository).save(
      credo.context,
      new DidCommBasicMessageRecord({
        connectionId,
        role: DidCommBasicMessageRole.Receiver,
        content: 'lost in the crash',
        sentTime: new Date('2026-11-22T01:00:00Z').toISOString(),
        threadId: lostId,
        parentThreadId: liveId,
      }),
    )
    const connections = credo.dependencyManager.resolve(DidCommConnectionRepository)
    const connection = await connections.getById(credo.context, connectionId)
    connection.theirDid = undefined // what receiving the peer's hang-up stores
    await connections.update(credo.context, connection)
    const sentRecords = sentMessageRepository(credo.context)
    const sentRecord = await sentRecords.getById(credo.context, sentId)
    expect(sentRecord.state).toBe('sent')
    sentRecord.state = 'delivered' // what the peer's receipt stores
    await sentRecords.update(credo.context, sentRecord)

    const before = await outboxEvents(agent.node)
    await agent.restart()
    const recovered = (await outboxEvents(agent.node)).slice(before.length)

    expect(bodies(recovered)).toEqual(
      expect.arrayContaining([
        { type: 'connection-state-updated', connectionId, invitationId: connection.outOfBandId, state: 'terminated' },
        {
          type: 'message-received',
          message: {
            type: 'text',
            id: lostId,
            connectionId,
            timestamp: Date.parse('2026-11-22T01:00:00Z') / 1000,
            threadId: liveId,
            content: 'lost in the crash',
          },
        },
        { type: 'message-state-updated', messageId: sentId, connectionId, state: 'delivered', timestamp: expect.any(Number) },
      ]),
    )
    expect(recovered).toHaveLength(3)
    // Recovered events continue the connection's sequence.
    const lastSeqBefore = Math.max(...before.filter((e) => e.connectionId === connectionId).map((e) => e.seq))
    expect(recovered.map((e) => e.seq).sort((a, b) => a - b)).toEqual([lastSeqBefore + 1, lastSeqBefore + 2, lastSeqBefore + 3])

    const afterFirst = await outboxEvents(agent.node)
    await agent.restart()
    expect(await outboxEvents(agent.node)).toEqual(afterFirst)
  }, 120_000)

  it('compares only what changed since its checkpoint: older history is not read, a lost change is still found', async () => {
    // History: many events, all older than the checkpoint the next start writes.
    const history = Array.from({ length: 2_500 }, (_, i) => ({
      id: randomUUID(),
      connectionId: randomUUID(),
      event: { type: 'message-state-updated', messageId: randomUUID(), connectionId: randomUUID(), state: 'viewed', timestamp: i } as const,
    }))
    for (let i = 0; i < history.length; i += 500) await agent.node.outbox.append(history.slice(i, i + 500))
    await agent.restart() // reads them once (they came after the last checkpoint) and moves the checkpoint past them
    expect(agent.node.recovery.eventsRead).toBeGreaterThanOrEqual(history.length)

    // The crash window, after the checkpoint: a state stored, its event not. Its last report lies
    // before the checkpoint's position, so recovery finds it in the connection's older events.
    const { agent: credo } = agent.node
    const sentRecords = sentMessageRepository(credo.context)
    const [delivered] = await sentRecords.findByQuery(credo.context, { connectionId, state: 'delivered' })
    delivered!.state = 'viewed'
    await sentRecords.update(credo.context, delivered!)
    // A record touched without a new state (Credo saves metadata too): nothing to report.
    const connections = credo.dependencyManager.resolve(DidCommConnectionRepository)
    const connection = await connections.getById(credo.context, connectionId)
    connection.metadata.set('touched', { at: Date.now() })
    await connections.update(credo.context, connection)

    const before = await outboxEvents(agent.node)
    await agent.restart()
    expect(agent.node.recovery.eventsRead).toBe(0)
    expect(agent.node.recovery.recovered).toEqual({ connectionStates: 0, receivedMessages: 0, messageStates: 1 })
    const recovered = (await outboxEvents(agent.node)).slice(before.length)
    expect(bodies(recovered)).toEqual([
      { type: 'message-state-updated', messageId: delivered!.id, connectionId, state: 'viewed', timestamp: expect.any(Number) },
    ])
  }, 120_000)
})
