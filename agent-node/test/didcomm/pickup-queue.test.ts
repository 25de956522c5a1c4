/**
 * The message pickup queue in the agent database: messages waiting for a wallet survive a
 * restart (a new repository on the same database), in order, per connection and recipient; a
 * message taken but not confirmed before the restart is offered again.
 */
import type { AgentContext } from '@credo-ts/core'
import type { DidCommEncryptedMessage } from '@credo-ts/didcomm'
import { describe, expect, it } from 'vitest'
import { DatabaseQueueTransportRepository } from '../../src/didcomm/transport/DatabaseQueueTransportRepository.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const context = { contextCorrelationId: 'default' } as AgentContext
const packed = (n: number): DidCommEncryptedMessage => ({ protected: `p${n}`, iv: `iv${n}`, ciphertext: `c${n}`, tag: `t${n}` })

describe.each(dialects)('DatabaseQueueTransportRepository on %s', (dialect) => {
  const databases = useTempDatabases('parley-pickup-', dialect)

  it('keeps queued messages across a restart, oldest first, per connection and recipient', async () => {
    const first = await DatabaseQueueTransportRepository.open(await databases.open())
    for (let n = 0; n < 3; n++) {
      await first.addMessage(context, {
        connectionId: 'a',
        recipientDids: ['did:peer:alice'],
        payload: packed(n),
        receivedAt: new Date(1_000 + n),
      })
    }
    await first.addMessage(context, { connectionId: 'b', recipientDids: ['did:peer:bob'], payload: packed(9) })

    const restarted = await DatabaseQueueTransportRepository.open(await databases.open())
    expect(await restarted.getAvailableMessageCount(context, { connectionId: 'a' })).toBe(3)
    expect(await restarted.getAvailableMessageCount(context, { connectionId: 'a', recipientDid: 'did:peer:bob' })).toBe(0)
    const taken = await restarted.takeFromQueue(context, { connectionId: 'a', limit: 2 })
    expect(taken.map((message) => message.encryptedMessage)).toEqual([packed(0), packed(1)])
    expect(taken[0]!.receivedAt.getTime()).toBe(1_000)
    // taken, not confirmed: not offered twice while this process runs
    expect(await restarted.getAvailableMessageCount(context, { connectionId: 'a' })).toBe(1)
    await restarted.removeMessages(context, { connectionId: 'a', messageIds: [taken[0]!.id] })

    // a restart before the wallet confirmed the second one: offered again, before the third
    const again = await DatabaseQueueTransportRepository.open(await databases.open())
    const rest = await again.takeFromQueue(context, { connectionId: 'a', deleteMessages: true })
    expect(rest.map((message) => message.encryptedMessage)).toEqual([packed(1), packed(2)])
    expect(await again.getAvailableMessageCount(context, { connectionId: 'a' })).toBe(0)
    expect(await again.getAvailableMessageCount(context, { connectionId: 'b' })).toBe(1)
  })
})
