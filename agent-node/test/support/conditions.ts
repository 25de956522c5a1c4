/**
 * Waiting on conditions in tests without sleeping: whoever changes the state calls `changed`,
 * and `until` resolves once its condition holds (checked at once and after every change), or
 * rejects after `timeoutMs` with `describe()` in the message. Where nothing can call `changed`,
 * `eventually` retries an assertion instead.
 */
import { vi } from 'vitest'
import { expectOptions } from '../../../vitest.shared.ts'

/**
 * Retries `assertion` until it passes (vitest's `vi.waitFor`, every 20 ms), for as long as every
 * project lets `expect.poll` wait (vitest.shared.ts) rather than vitest's 1 s: what it waits for
 * is background work, which loaded CI cores slow down. Resolves with the assertion's value.
 */
export function eventually<T>(assertion: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(assertion, { timeout: expectOptions.poll.timeout, interval: 20 })
}

export interface Conditions {
  changed(): void
  until(condition: () => boolean, timeoutMs?: number): Promise<void>
}

export function conditions(describe: () => string = () => ''): Conditions {
  const waiters = new Set<() => void>()
  return {
    changed() {
      for (const waiter of [...waiters]) waiter()
    },
    until(condition, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`condition not met within ${timeoutMs} ms; ${describe()}`))
        }, timeoutMs)
        const check = () => {
          if (!condition()) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve()
        }
        waiters.add(check)
        check()
      })
    },
  }
}
