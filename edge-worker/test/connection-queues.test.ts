import { describe, expect, it } from 'vitest'
import { ConnectionQueues } from '../src/tunnel-gateway/ConnectionQueues.ts'

/** A task that records its start and end in `log` and finishes when `release` is called. */
function gatedTask(log: string[], name: string) {
  let release!: () => void
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  return {
    release: () => release(),
    run: async () => {
      log.push(`start ${name}`)
      await gate
      log.push(`end ${name}`)
    },
  }
}

describe('ConnectionQueues', () => {
  it('runs the tasks of one connection one after another, in order', async () => {
    const queues = new ConnectionQueues()
    const log: string[] = []
    const first = gatedTask(log, 'a1')
    const second = gatedTask(log, 'a2')
    const outcomes = [queues.run('a', 'e1', first.run), queues.run('a', 'e2', second.run)]
    await Promise.resolve()
    second.release()
    first.release()
    expect(await Promise.all(outcomes)).toEqual(['done', 'done'])
    expect(log).toEqual(['start a1', 'end a1', 'start a2', 'end a2'])
  })

  it('runs different connections concurrently', async () => {
    const queues = new ConnectionQueues()
    const log: string[] = []
    const a = gatedTask(log, 'a')
    const b = gatedTask(log, 'b')
    const outcomes = [queues.run('a', 'e1', a.run), queues.run('b', 'e2', b.run)]
    const bDone = outcomes[1]!.then(() => log.push('b settled'))
    b.release()
    await bDone
    expect(log).toEqual(['start a', 'start b', 'end b', 'b settled'])
    a.release()
    expect(await Promise.all(outcomes)).toEqual(['done', 'done'])
  })

  it('holds back a connection after a failure until the failed event comes again', async () => {
    const queues = new ConnectionQueues()
    const ran: string[] = []
    const ok = (id: string) => async () => {
      ran.push(id)
    }
    expect(
      await queues.run('a', 'e1', async () => {
        throw new Error('storage down')
      }),
    ).toBe('failed')
    expect(await queues.run('a', 'e2', ok('e2'))).toBe('held-back')
    expect(await queues.run('b', 'x1', ok('x1'))).toBe('done')
    expect(await queues.run('a', 'e1', ok('e1'))).toBe('done')
    expect(await queues.run('a', 'e2', ok('e2'))).toBe('done')
    expect(ran).toEqual(['x1', 'e1', 'e2'])
  })

  it('forgets held-back connections on reset', async () => {
    const queues = new ConnectionQueues()
    await queues.run('a', 'e1', async () => {
      throw new Error('storage down')
    })
    queues.reset()
    expect(await queues.run('a', 'e2', async () => {})).toBe('done')
  })
})
