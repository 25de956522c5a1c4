/**
 * The message pickup queue in the agent database: messages waiting for a wallet survive a
 * restart (a new repository on the same database), in order, per connection and recipient; a
 * message taken but not confirmed before the restart is offered again, and, with several
 * instances on one database, one a dead instance had taken. It knows, without reading the
 * database, which connections may have messages waiting (what a later message must not overtake)
 * and which have messages taken for a delivery not yet handed to the transport, and it holds a
 * delivery back behind the deliveries of messages taken before its own.
 */
import type { AgentContext } from '@credo-ts/core'
import type { DidCommEncryptedMessage } from '@credo-ts/didcomm'
import { describe, expect, it } from 'vitest'
import { instanceLeaseName, LeaseStore } from '../../src/cluster/leases.ts'
import { DatabaseQueueTransportRepository } from '../../src/didcomm/transport/DatabaseQueueTransportRepository.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const context = { contextCorrelationId: 'default' } as AgentContext
/** Resolves after the pending promise callbacks have run (one turn of the event loop). */
const aTurnLater = () => new Promise((resolve) => setImmediate(resolve))
const packed = (n: number): DidCommEncryptedMessage => ({ protected: `p${n}`, iv: `iv${n}`, ciphertext: `c${n}`, tag: `t${n}` })

describe.each(dialects)('DatabaseQueueTransportRepository on %s', (dialect) => {
  const databases = useTempDatabases('parley-pickup-', dialect)

  it('keeps queued messages across a restart, oldest first, per connection and recipient', async () => {
    const first = await DatabaseQueueTransportRepository.open(await databases.open(), 'run-1')
    for (let n = 0; n < 3; n++) {
      await first.addMessage(context, {
        connectionId: 'a',
        recipientDids: ['did:peer:alice'],
        payload: packed(n),
        receivedAt: new Date(1_000 + n),
      })
    }
    await first.addMessage(context, { connectionId: 'b', recipientDids: ['did:peer:bob'], payload: packed(9) })

    const restarted = await DatabaseQueueTransportRepository.open(await databases.open(), 'run-2')
    expect(await restarted.getAvailableMessageCount(context, { connectionId: 'a' })).toBe(3)
    expect(await restarted.getAvailableMessageCount(context, { connectionId: 'a', recipientDid: 'did:peer:bob' })).toBe(0)
    const taken = await restarted.takeFromQueue(context, { connectionId: 'a', limit: 2 })
    expect(taken.map((message) => message.encryptedMessage)).toEqual([packed(0), packed(1)])
    expect(taken[0]!.receivedAt.getTime()).toBe(1_000)
    // taken, not confirmed: not offered twice while this process runs
    expect(await restarted.getAvailableMessageCount(context, { connectionId: 'a' })).toBe(1)
    await restarted.removeMessages(context, { connectionId: 'a', messageIds: [taken[0]!.id] })

    // a restart before the wallet confirmed the second one: offered again, before the third
    const again = await DatabaseQueueTransportRepository.open(await databases.open(), 'run-3')
    const rest = await again.takeFromQueue(context, { connectionId: 'a', deleteMessages: true })
    expect(rest.map((message) => message.encryptedMessage)).toEqual([packed(1), packed(2)])
    expect(await again.getAvailableMessageCount(context, { connectionId: 'a' })).toBe(0)
    expect(await again.getAvailableMessageCount(context, { connectionId: 'b' })).toBe(1)
  })

  it('offers again what a dead instance took, never what a live one holds, and never takes a message twice', async () => {
    const location = databases.path
    const database = await databases.open(location)
    const leases = await LeaseStore.open(database)
    for (const instance of ['live', 'dying']) await leases.claim(instanceLeaseName(instance), instance, 60_000)
    const live = await DatabaseQueueTransportRepository.open(database, 'live')
    const dying = await DatabaseQueueTransportRepository.open(await databases.open(location), 'dying')
    await live.addMessage(context, { connectionId: 'a', recipientDids: [], payload: packed(1) })
    await live.addMessage(context, { connectionId: 'b', recipientDids: [], payload: packed(2) })
    const [mine, theirs] = await Promise.all([
      live.takeFromQueue(context, { connectionId: 'a' }),
      dying.takeFromQueue(context, { connectionId: 'a' }),
    ])
    expect(mine.length + theirs.length).toBe(1) // two instances at once: one takes it
    if (theirs.length > 0) await dying.removeMessages(context, { connectionId: 'a', messageIds: [theirs[0]!.id] })
    else await live.removeMessages(context, { connectionId: 'a', messageIds: [mine[0]!.id] })
    expect(await dying.takeFromQueue(context, { connectionId: 'b' })).toHaveLength(1)
    expect(await live.releaseGone()).toEqual([]) // its taker is alive
    await leases.release(instanceLeaseName('dying'), 'dying') // ... and now gone
    expect(await live.releaseGone()).toEqual(['b'])
    expect((await live.takeFromQueue(context, { connectionId: 'b' })).map((m) => m.encryptedMessage)).toEqual([packed(2)])
  })

  it('knows which connections have messages waiting, from a restart on, until a take finds none left', async () => {
    const first = await DatabaseQueueTransportRepository.open(await databases.open(), 'run-1')
    expect(first.hasWaiting('a')).toBe(false)
    for (let n = 0; n < 3; n++)
      await first.addMessage(context, { connectionId: 'a', recipientDids: ['did:peer:alice'], payload: packed(n) })
    expect(first.hasWaiting('a')).toBe(true)
    expect(first.hasWaiting('b')).toBe(false)

    const restarted = await DatabaseQueueTransportRepository.open(await databases.open(), 'run-2')
    expect(restarted.hasWaiting('a')).toBe(true) // read at open
    await restarted.takeFromQueue(context, { connectionId: 'a', recipientDid: 'did:peer:alice' })
    expect(restarted.hasWaiting('a')).toBe(true) // a take for one recipient says nothing of the others
    await restarted.addMessage(context, { connectionId: 'a', recipientDids: ['did:peer:alice'], payload: packed(3) })
    await restarted.takeFromQueue(context, { connectionId: 'a', limit: 0 })
    expect(restarted.hasWaiting('a')).toBe(true) // one left behind the limit
    expect(await restarted.takeFromQueue(context, { connectionId: 'a' })).toHaveLength(1)
    expect(restarted.hasWaiting('a')).toBe(false)

    restarted.noteWaiting('b') // another instance queued for b
    expect(restarted.hasWaiting('b')).toBe(true)
    expect(await restarted.getAvailableMessageCount(context, { connectionId: 'b' })).toBe(0)
    expect(restarted.hasWaiting('b')).toBe(false)
  })

  it('knows which taken messages are in a delivery not yet sent, until delivered, given back or confirmed', async () => {
    const queue = await DatabaseQueueTransportRepository.open(await databases.open(), 'run-1')
    const add = (n: number) => queue.addMessage(context, { connectionId: 'a', recipientDids: ['did:peer:alice'], payload: packed(n) })
    const take = async () => (await queue.takeFromQueue(context, { connectionId: 'a', limit: 1 })).map((message) => message.id)
    for (let n = 0; n < 4; n++) await add(n)

    const [first] = await take()
    expect(queue.isDelivering('a')).toBe(true)
    expect(queue.isDelivering('b')).toBe(false)
    queue.delivered('a', [first!])
    expect(queue.isDelivering('a')).toBe(false)

    const [second] = await take()
    await queue.release('a', [second!])
    expect(queue.isDelivering('a')).toBe(false)
    expect(queue.hasWaiting('a')).toBe(true)

    const [again] = await take()
    expect(again).toBe(second)
    await queue.removeMessages(context, { connectionId: 'a', messageIds: [again!] })
    expect(queue.isDelivering('a')).toBe(false)

    // a take that deletes (Pickup v1) hands its messages over at once
    await queue.takeFromQueue(context, { connectionId: 'a', limit: 1, deleteMessages: true })
    expect(queue.isDelivering('a')).toBe(false)
  })

  it('keeps a delivery in progress when a concurrent take of the same messages got none of them', async () => {
    const queue = await DatabaseQueueTransportRepository.open(await databases.open(), 'run-1')
    await queue.addMessage(context, { connectionId: 'a', recipientDids: ['did:peer:alice'], payload: packed(0) })
    const takes = await Promise.all([
      queue.takeFromQueue(context, { connectionId: 'a' }),
      queue.takeFromQueue(context, { connectionId: 'a' }),
    ])
    const taken = takes.flat()
    expect(taken).toHaveLength(1)
    expect(queue.isDelivering('a')).toBe(true)
    queue.delivered('a', [taken[0]!.id])
    expect(queue.isDelivering('a')).toBe(false)
  })

  it('holds a delivery back until the deliveries of messages taken before its own are handed over', async () => {
    const queue = await DatabaseQueueTransportRepository.open(await databases.open(), 'run-1')
    for (let n = 0; n < 3; n++)
      await queue.addMessage(context, { connectionId: 'a', recipientDids: ['did:peer:alice'], payload: packed(n) })
    const take = async () => (await queue.takeFromQueue(context, { connectionId: 'a', limit: 1 })).map((message) => message.id)
    const first = await take()
    const second = await take()
    const third = await take()

    await queue.deliveriesBefore('a', first, 60_000) // the oldest take waits for nothing
    await queue.deliveriesBefore('a', ['not-taken-here'], 60_000)
    const order: string[] = []
    const thirdTurn = queue.deliveriesBefore('a', third, 60_000).then(() => order.push('third'))
    const secondTurn = queue.deliveriesBefore('a', second, 60_000).then(() => order.push('second'))
    await aTurnLater()
    expect(order).toEqual([])
    queue.delivered('a', first)
    await secondTurn
    expect(order).toEqual(['second'])
    await queue.release('a', second) // given back settles it too
    await thirdTurn
    expect(order).toEqual(['second', 'third'])
  })

  it('gives up waiting for an earlier delivery after the time allowed', async () => {
    const queue = await DatabaseQueueTransportRepository.open(await databases.open(), 'run-1')
    for (let n = 0; n < 2; n++)
      await queue.addMessage(context, { connectionId: 'a', recipientDids: ['did:peer:alice'], payload: packed(n) })
    await queue.takeFromQueue(context, { connectionId: 'a', limit: 1 }) // never delivered
    const [later] = await queue.takeFromQueue(context, { connectionId: 'a', limit: 1 })
    let gaveUp = false
    const waited = queue.deliveriesBefore('a', [later!.id], 50).then(() => {
      gaveUp = true
    })
    await aTurnLater()
    expect(gaveUp).toBe(false) // it does wait for the earlier delivery
    await waited // and gives up on it: that one is never delivered
    expect(queue.isDelivering('a')).toBe(true)
  })
})
