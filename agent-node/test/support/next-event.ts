/** For tests: waiting for one Credo event of an agent (agent-node's or a wallet peer's). */
import type { BaseEvent } from '@credo-ts/core'
import type { DidcommAgent } from '../../src/didcomm/agent.ts'

/**
 * Resolves with `pick(payload)` of the first `eventType` event for which it returns a value;
 * rejects after `timeoutMs`. Subscribe before triggering what emits the event.
 */
export function nextEvent<E extends BaseEvent, R>(
  agent: DidcommAgent,
  eventType: E['type'],
  pick: (payload: E['payload']) => R | undefined,
  timeoutMs = 60_000,
): Promise<R> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching ${eventType} within ${timeoutMs} ms`)), timeoutMs)
    const listener = ({ payload }: E) => {
      const picked = pick(payload)
      if (picked === undefined) return
      clearTimeout(timer)
      agent.events.off<E>(eventType, listener)
      resolve(picked)
    }
    agent.events.on<E>(eventType, listener)
  })
}
