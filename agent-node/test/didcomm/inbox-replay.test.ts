/**
 * An inbound envelope processed again publishes nothing new (issue 17: the crash of "processed,
 * not deleted", on one instance or adopted by another). A real agent-node and a Credo wallet: the
 * envelopes of a text are captured as the agent reads them, then put back in the inbox as rows of
 * an instance that died before deleting them. The running agent adopts and processes them again
 * (Credo stores a second record of the text), and the outbox still holds one `message-received`
 * for its DIDComm `@id`, also after a restart (start-up recovery). Two publishers on one database storing the same
 * message at once store it once.
 */
import { DidCommBasicMessageRepository, DidCommMessageReceiver } from '@credo-ts/didcomm'
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { execute, selectRows } from '../../src/database/dialect.ts'
import { openDatabase } from '../../src/database/index.ts'
import { DeliveryEngine } from '../../src/events/delivery/engine.ts'
import { OutboxStore, type PublishedEvent } from '../../src/events/outbox/store.ts'
import { EventPublisher } from '../../src/events/publisher.ts'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { connectWallet, useTestAgentNode } from '../support/agent-node.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const logger = createLogger('silent')

describe.each(dialects)('an inbound envelope processed twice on %s', (dialect) => {
  const started = useTestAgentNode(dialect)

  it('publishes its message-received once, and a restart adds nothing', { timeout: 90_000 }, async () => {
    const { agent } = started
    const wallet = await WalletPeer.create({ label: 'replay wallet', logger })
    try {
      const { connectionId, walletConnectionId } = await connectWallet(agent.node, agent.adminUrl, wallet)
      // every envelope the agent reads from now on
      const receiver = agent.node.agent.dependencyManager.resolve(DidCommMessageReceiver)
      const captured: unknown[] = []
      const receive = receiver.receiveMessage.bind(receiver)
      receiver.receiveMessage = (message, options) => {
        captured.push(message)
        return receive(message, options)
      }
      const messageId = await wallet.sendText(walletConnectionId, 'said once')
      const received = async () =>
        (await agent.node.outbox.eventsAfterPosition(0, { topics: ['message-received'], connectionId }, 1_000)).filter(
          (e) => e.event.type === 'message-received' && e.event.message.id === messageId,
        )
      await expect.poll(async () => (await received()).length, { timeout: 20_000 }).toBe(1)
      const [first] = await received()
      expect(captured.length).toBeGreaterThan(0)

      // as if another instance had read them and died before deleting them: this one adopts
      // them at its next round (every third of LEASE_TTL_SECONDS)
      const location = agent.config.databaseUrl ?? `${agent.config.dataDir}/agent.sqlite`
      const database = await openDatabase(location)
      const inboxRows = async () => (await selectRows(database, sql`SELECT id FROM didcomm_inbox`)).length
      try {
        for (const [i, envelope] of captured.entries())
          await execute(
            database,
            sql`INSERT INTO didcomm_inbox (id, envelope, received_at, instance_id)
            VALUES (${`replayed-${i}`}, ${JSON.stringify(envelope)}, ${i}, 'crashed-instance')`,
          )
        await expect.poll(inboxRows, { timeout: 20_000 }).toBe(0) // adopted and processed again
      } finally {
        await database.close()
      }
      const records = await agent.node.agent.dependencyManager
        .resolve(DidCommBasicMessageRepository)
        .findByQuery(agent.node.agent.context, { connectionId, threadId: messageId })
      expect(records.length).toBe(2) // Credo did process it twice
      expect(await received()).toEqual([first]) // and it was published once
      await agent.restart() // start-up recovery sees two records of one message: nothing to add
      expect(await received()).toEqual([first]) // and it was published once
    } finally {
      await wallet.stop()
    }
  })
})

describe.each(dialects)('two publishers on one %s database', (dialect) => {
  const databases = useTempDatabases('parley-publish-once-', dialect)

  it('store a message-received of the same connection and @id once; the second resolves with the first', async () => {
    const location = databases.path
    const publishers = await Promise.all(
      [0, 1].map(async () => {
        const store = await OutboxStore.open(await databases.open(location))
        const publisher = new EventPublisher(store, new DeliveryEngine(store, logger), logger)
        const stored: PublishedEvent[] = []
        publisher.onStored((events) => stored.push(...events))
        return { publisher, stored }
      }),
    )
    const event = {
      type: 'message-received' as const,
      message: { type: 'text' as const, id: 'didcomm-id', connectionId: 'conn', timestamp: 1, threadId: null, content: 'hi' },
    }
    const results = await Promise.all([
      ...publishers.map(({ publisher }) => publisher.publish(event)),
      publishers[0]!.publisher.publish(event), // the same batch twice
      publishers[0]!.publisher.publish({ ...event, message: { ...event.message, connectionId: 'other' } }), // another connection
    ])
    expect(new Set(results.slice(0, 3).map((e) => e.id)).size).toBe(1)
    expect(results[3]!.id).not.toBe(results[0]!.id)
    const woken = publishers.flatMap(({ stored }) => stored.map((e) => `${e.connectionId} ${e.seq}`))
    expect(woken.sort()).toEqual(['conn 1', 'other 1']) // no listener heard the repeats
  })
})
