/**
 * What a `DeliveryEngine` recorded, for tests: every attempt's record (optionally only one
 * subscriber's) and `until`, which resolves once a condition holds, re-checked after each record.
 */
import type { DeliveryEngine, DeliveryRecord } from '../../src/events/delivery/engine.ts'

export interface DeliveryRecords {
  records: DeliveryRecord[]
  until(condition: () => boolean): Promise<void>
}

export function recordDeliveries(engine: DeliveryEngine, subscriber?: string): DeliveryRecords {
  const records: DeliveryRecord[] = []
  const waiters = new Set<() => void>()
  engine.observe((record) => {
    if (subscriber !== undefined && record.subscriber !== subscriber) return
    records.push(record)
    for (const waiter of [...waiters]) waiter()
  })
  const until = (condition: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!condition()) return
        waiters.delete(check)
        resolve()
      }
      waiters.add(check)
      check()
    })
  return { records, until }
}
