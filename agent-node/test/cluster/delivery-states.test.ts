/**
 * Two agent-node instances on one database moving the same messages at once (one reports `sent`
 * as its send completes, the other a `viewed` receipt that reached it): no instance stores an
 * earlier state over a later one the other stored meanwhile (`DeliveryStates`, through the record
 * store's optimistic `updateByIdWithLock`). Each instance is a `DeliveryStates` of its own on the
 * real agent-node's storage and event outbox, so each has its own per-message queue, as separate
 * processes would.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { DeliveryStates } from '../../src/messaging/DeliveryStates.ts'
import { sentMessageRepository } from '../../src/messaging/SentMessageRecord.ts'
import { useTestAgentNode } from '../support/agent-node.ts'
import { dialects } from '../support/temp-databases.ts'

describe.each(dialects)('delivery states moved by two instances on %s', (dialect) => {
  const started = useTestAgentNode(dialect)

  it('never go back: a late sent loses to a viewed stored meanwhile', { timeout: 60_000 }, async () => {
    const { agent, events } = started.agent.node
    const logger = createLogger('silent')
    const [first, second] = [new DeliveryStates(agent, events, logger, 'first'), new DeliveryStates(agent, events, logger, 'second')]
    const connectionId = randomUUID()
    const ids = Array.from({ length: 40 }, () => randomUUID())
    for (const id of ids) await first.create(id, connectionId, { type: 'text', connectionId, content: id })

    await Promise.all(ids.flatMap((id) => [first.advance(id, connectionId, 'sent'), second.advance(id, connectionId, 'viewed')]))

    const repository = sentMessageRepository(agent.context)
    const states = await Promise.all(ids.map(async (id) => (await repository.getById(agent.context, id)).state))
    expect(states).toEqual(ids.map(() => 'viewed'))
  })
})
