/**
 * Unit test of `acknowledged`: the `received` receipt of a message is queued only after the
 * message's event is stored, and never when storing failed. The agent is a stand-in holding only
 * the receipts queue (the real path is covered in receipts.test.ts).
 */
import type { MessageEnvelope } from '@parley/shared'
import { describe, expect, it, vi } from 'vitest'
import type { DidcommAgent } from '../../src/didcomm/agent.ts'
import { ReceiptState } from '../../src/didcomm/protocols/receipts/index.ts'
import { acknowledged } from '../../src/messaging/acknowledge.ts'
import type { MessageReceiver } from '../../src/messaging/contract.ts'

const message = { type: 'text', id: 'm-1', connectionId: 'c-1', timestamp: 0, threadId: null, content: 'hi' } as MessageEnvelope

/** Runs `acknowledged` over a receiver that reports `message` once; `store` stands for the outbox write. */
async function receiveOnce(store: Promise<unknown>) {
  const queue = vi.fn()
  const agent = { modules: { receipts: { queue } } } as unknown as DidcommAgent
  let reported!: Promise<unknown>
  const receiver: MessageReceiver = (_agent, receive) => {
    reported = receive(message)
  }
  acknowledged(receiver)(agent, () => store)
  return { queue, reported: () => reported }
}

describe('acknowledged', () => {
  it('queues the received receipt only once the event is stored', async () => {
    let stored!: () => void
    const { queue, reported } = await receiveOnce(new Promise<void>((resolve) => (stored = resolve)))
    await Promise.resolve()
    expect(queue).not.toHaveBeenCalled()
    stored()
    await reported()
    expect(queue).toHaveBeenCalledWith('c-1', { messageId: 'm-1', state: ReceiptState.Received })
  })

  it('sends no receipt when the event could not be stored', async () => {
    const { queue, reported } = await receiveOnce(Promise.reject(new Error('disk full')))
    await reported()
    expect(queue).not.toHaveBeenCalled()
  })
})
