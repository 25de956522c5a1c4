/**
 * Waiting on conditions in tests without sleeping: whoever changes the state calls `changed`,
 * and `until` resolves once its condition holds (checked at once and after every change), or
 * rejects after `timeoutMs` with `describe()` in the message.
 */
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
