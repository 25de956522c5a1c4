/**
 * Unit test of the receipts queue's window (`ReceiptsApi.queue`): receipts to one connection leave
 * together after `RECEIPT_BATCH_WINDOW_MS` while the agent is not busy, and wait up to
 * `RECEIPT_BUSY_WINDOW_MS` while it is. The clock is faked, the event loop's utilization is read
 * from a stand-in, and `send` (the DIDComm send, covered end to end in
 * `messaging/receipts.test.ts`) is a spy.
 */
import { type EventLoopUtilization, performance } from 'node:perf_hooks'
import type { AgentContext } from '@credo-ts/core'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  BUSY_LOOP_UTILIZATION,
  RECEIPT_BATCH_WINDOW_MS,
  RECEIPT_BUSY_WINDOW_MS,
  ReceiptsApi,
} from '../../src/didcomm/protocols/receipts/ReceiptsApi.ts'
import { ReceiptState } from '../../src/didcomm/protocols/receipts/index.ts'

/** A queue whose sends are recorded, and a setter of the event loop's utilization it reads. */
function receiptsQueue() {
  const api = new ReceiptsApi({ config: { logger: { warn: vi.fn() } } } as unknown as AgentContext)
  const send = vi.spyOn(api, 'send').mockResolvedValue(undefined as never)
  let utilization = 0
  // as Node counts them, the loop's idle and active time add up to the (here fake) time elapsed
  const sinceStart = (): EventLoopUtilization => {
    const elapsed = Date.now()
    return { idle: elapsed * (1 - utilization), active: elapsed * utilization, utilization }
  }
  vi.spyOn(performance, 'eventLoopUtilization').mockImplementation((since?: EventLoopUtilization) => {
    const now = sinceStart()
    return since ? { idle: now.idle - since.idle, active: now.active - since.active, utilization } : now
  })
  const sentIds = () => send.mock.calls.map(([connectionId, receipts]) => [connectionId, receipts.map((r) => r.messageId)])
  return { api, sentIds, setUtilization: (value: number) => (utilization = value) }
}

const received = (messageId: string) => ({ messageId, state: ReceiptState.Received })

describe('receipts window', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
    vi.restoreAllMocks()
  })

  it('sends the receipts of one connection together when the short window closes, while not busy', async () => {
    const { api, sentIds, setUtilization } = receiptsQueue()
    setUtilization(BUSY_LOOP_UTILIZATION / 2)
    api.queue('c-1', received('m-1'))
    api.queue('c-2', received('m-9'))
    await vi.advanceTimersByTimeAsync(RECEIPT_BATCH_WINDOW_MS / 2)
    api.queue('c-1', received('m-2'))
    expect(sentIds()).toEqual([])
    await vi.advanceTimersByTimeAsync(RECEIPT_BATCH_WINDOW_MS / 2)
    expect(sentIds()).toEqual([
      ['c-1', ['m-1', 'm-2']],
      ['c-2', ['m-9']],
    ])
  })

  it('keeps the window open until the longest wait while the event loop is busy', async () => {
    const { api, sentIds, setUtilization } = receiptsQueue()
    setUtilization(BUSY_LOOP_UTILIZATION)
    api.queue('c-1', received('m-1'))
    await vi.advanceTimersByTimeAsync(RECEIPT_BATCH_WINDOW_MS)
    expect(sentIds()).toEqual([])
    api.queue('c-1', received('m-2'))
    await vi.advanceTimersByTimeAsync(RECEIPT_BUSY_WINDOW_MS - RECEIPT_BATCH_WINDOW_MS - 1)
    expect(sentIds()).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(sentIds()).toEqual([['c-1', ['m-1', 'm-2']]])
  })

  it('starts a new window for the receipts queued after a send', async () => {
    const { api, sentIds, setUtilization } = receiptsQueue()
    setUtilization(1)
    api.queue('c-1', received('m-1'))
    await vi.advanceTimersByTimeAsync(RECEIPT_BUSY_WINDOW_MS)
    setUtilization(0)
    api.queue('c-1', received('m-2'))
    await vi.advanceTimersByTimeAsync(RECEIPT_BATCH_WINDOW_MS)
    expect(sentIds()).toEqual([
      ['c-1', ['m-1']],
      ['c-1', ['m-2']],
    ])
  })

  it('sends at once when a connection has 100 receipts queued, and flush sends the rest', async () => {
    const { api, sentIds, setUtilization } = receiptsQueue()
    setUtilization(1)
    const ids = Array.from({ length: 101 }, (_, i) => `m-${i}`)
    for (const id of ids) api.queue('c-1', received(id))
    expect(sentIds()).toEqual([['c-1', ids.slice(0, 100)]])
    await api.flush()
    expect(sentIds()).toEqual([
      ['c-1', ids.slice(0, 100)],
      ['c-1', ids.slice(100)],
    ])
  })
})
