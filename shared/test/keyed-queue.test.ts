import { describe, expect, it } from 'vitest'
import { KeyedQueue } from '../src/concurrency/index.ts'

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('KeyedQueue', () => {
  it('runs the tasks of one key in the order queued, even when an earlier one is slower', async () => {
    const queue = new KeyedQueue()
    const order: string[] = []
    await Promise.all([
      queue.run('a', async () => {
        await later(30)
        order.push('a1')
      }),
      queue.run('a', async () => {
        order.push('a2')
      }),
    ])
    expect(order).toEqual(['a1', 'a2'])
  })

  it('runs other keys without waiting', async () => {
    const queue = new KeyedQueue()
    const order: string[] = []
    await Promise.all([
      queue.run('a', async () => {
        await later(30)
        order.push('a')
      }),
      queue.run('b', async () => {
        order.push('b')
      }),
    ])
    expect(order).toEqual(['b', 'a'])
  })

  it('passes results and errors through, and a failed task does not stop the next one', async () => {
    const queue = new KeyedQueue()
    const failed = queue.run('a', async () => {
      throw new Error('boom')
    })
    const next = queue.run('a', async () => 42)
    await expect(failed).rejects.toThrow('boom')
    await expect(next).resolves.toBe(42)
  })

  it('settles once every queued task has, and forgets idle keys', async () => {
    const queue = new KeyedQueue()
    let done = false
    void queue.run('a', async () => {
      await later(20)
      done = true
    })
    expect(queue.size).toBe(1)
    await queue.settled()
    expect(done).toBe(true)
    await later(0)
    expect(queue.size).toBe(0)
  })

  it('says which keys have a task queued or running', async () => {
    const queue = new KeyedQueue()
    const task = queue.run('a', () => later(10))
    expect(queue.has('a')).toBe(true)
    expect(queue.has('b')).toBe(false)
    await task
    await later(0)
    expect(queue.has('a')).toBe(false)
  })
})
