/**
 * Readiness of agent-node (`GET /readyz`): the database answers, the tunnel is open (when one is
 * configured), and no subscriber is further behind the outbox than the configured limit (the
 * subscribers named in `ignoredSubscribers` aside: presentation callbacks to a controller's URL say
 * nothing about whether this agent can serve).
 */
import pTimeout from 'p-timeout'
import type { OutboxStore } from '../events/outbox/store.ts'
import type { TunnelClient } from '../tunnel/TunnelClient.ts'

/** How long the database may take to answer the readiness query, in milliseconds. */
const DATABASE_TIMEOUT_MS = 2_000

/** The answer of `GET /readyz`; `ready` is true when every check is `ok`. */
export interface Readiness {
  ready: boolean
  checks: {
    database: { ok: boolean; error?: string }
    /** `not-configured` counts as ok: an agent without a controller tunnel serves webhooks only. */
    tunnel: { ok: boolean; state: 'connected' | 'disconnected' | 'not-configured' }
    /** The subscriber furthest behind, its lag in seconds, and the limit (READY_MAX_OUTBOX_LAG_SECONDS). */
    outbox: { ok: boolean; lagSeconds?: number; subscriber?: string; maxLagSeconds: number }
  }
}

/** What readiness is checked from; `ignoredSubscribers` do not count in the outbox lag. */
export interface ReadinessSources {
  outbox: OutboxStore
  tunnel?: TunnelClient
  maxLagSeconds: number
  ignoredSubscribers?: readonly string[]
}

/** Runs the checks once. Never throws: a failing check is reported in the answer. */
export async function checkReadiness(sources: ReadinessSources): Promise<Readiness> {
  const { outbox, tunnel, maxLagSeconds, ignoredSubscribers = [] } = sources
  const tunnelCheck: Readiness['checks']['tunnel'] = tunnel
    ? { ok: tunnel.connected, state: tunnel.connected ? 'connected' : 'disconnected' }
    : { ok: true, state: 'not-configured' }
  try {
    const lags = await pTimeout(outbox.lag(), { milliseconds: DATABASE_TIMEOUT_MS, message: `no answer within ${DATABASE_TIMEOUT_MS} ms` })
    const now = Date.now()
    const counted = lags.filter((lag) => !ignoredSubscribers.includes(lag.subscriber))
    const worst = counted.reduce<{ subscriber?: string; lagSeconds: number }>(
      (max, lag) => {
        const lagSeconds = Math.max(0, now - lag.oldestCreatedAt) / 1000
        return lagSeconds > max.lagSeconds ? { subscriber: lag.subscriber, lagSeconds } : max
      },
      { lagSeconds: 0 },
    )
    const outboxCheck = { ok: worst.lagSeconds <= maxLagSeconds, ...worst, maxLagSeconds }
    return { ready: tunnelCheck.ok && outboxCheck.ok, checks: { database: { ok: true }, tunnel: tunnelCheck, outbox: outboxCheck } }
  } catch (error) {
    return {
      ready: false,
      checks: { database: { ok: false, error: (error as Error).message }, tunnel: tunnelCheck, outbox: { ok: false, maxLagSeconds } },
    }
  }
}
