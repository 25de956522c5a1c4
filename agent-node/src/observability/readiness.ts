/**
 * Readiness of agent-node (`GET /readyz`): the database answers, the tunnel is open (when one is
 * configured), and no subscriber is further behind the outbox than the configured limit.
 */
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

/** Runs the checks once. Never throws: a failing check is reported in the answer. */
export async function checkReadiness(sources: { outbox: OutboxStore; tunnel?: TunnelClient; maxLagSeconds: number }): Promise<Readiness> {
  const { outbox, tunnel, maxLagSeconds } = sources
  const tunnelCheck: Readiness['checks']['tunnel'] = tunnel
    ? { ok: tunnel.connected, state: tunnel.connected ? 'connected' : 'disconnected' }
    : { ok: true, state: 'not-configured' }
  let timer: NodeJS.Timeout | undefined
  try {
    const lags = await Promise.race([
      outbox.lag(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_TIMEOUT_MS} ms`)), DATABASE_TIMEOUT_MS)
      }),
    ])
    const now = Date.now()
    const worst = lags.reduce<{ subscriber?: string; lagSeconds: number }>(
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
  } finally {
    clearTimeout(timer)
  }
}
