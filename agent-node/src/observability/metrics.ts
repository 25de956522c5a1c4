/**
 * agent-node's Prometheus metrics (prom-client), served at `GET /metrics` on the admin port
 * (`routes.ts`). Names and what they count are listed in docs/operations.md ("Metrics"):
 *
 * - DIDComm: messages processed and sent by message type (`@type` URI), sends by outcome, and
 *   DIDComm errors (an HTTP envelope rejected, an outbound message nobody could take, a problem
 *   report from a peer);
 * - events: attempts acknowledged, retried, dead-lettered and replayed per subscriber (from the
 *   delivery engine's observer); the outbox lag per subscriber, read from the database at scrape;
 * - tunnel: connected or not, last WebSocket ping round trip, events awaiting the worker's ack,
 *   and the worker's own counters (its tunnel gateway's, asked through the tunnel at scrape);
 * - the process: prom-client's default Node metrics, the event-loop delay among them
 *   (`nodejs_eventloop_lag_seconds`, `nodejs_eventloop_lag_p99_seconds`, …).
 */
import {
  DidCommEventTypes,
  OutboundMessageSendStatus,
  type DidCommMessageProcessedEvent,
  type DidCommMessageSentEvent,
} from '@credo-ts/didcomm'
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client'
import type { DidcommAgent } from '../didcomm/agent.ts'
import { INBOUND_MESSAGE_REJECTED, type InboundMessageRejectedEvent } from '../didcomm/transport/HttpInboundTransport.ts'
import type { DeliveryEngine, DeliveryRecord } from '../events/delivery/engine.ts'
import type { OutboxStore } from '../events/outbox/store.ts'
import type { TunnelClient } from '../tunnel/TunnelClient.ts'

/** What the metrics read; everything but the agent and the outbox is optional. */
export interface MetricSources {
  agent: DidcommAgent
  delivery: DeliveryEngine
  outbox: OutboxStore
  tunnel?: TunnelClient
}

/** Counter of delivery attempts by the status the engine reports. */
const DELIVERY_COUNTERS: Record<DeliveryRecord['status'], { name: string; help: string }> = {
  acknowledged: { name: 'parley_events_delivered_total', help: 'Events a subscriber acknowledged' },
  'retry-scheduled': { name: 'parley_events_retried_total', help: 'Failed delivery attempts that were scheduled for a retry' },
  'dead-lettered': {
    name: 'parley_events_dead_lettered_total',
    help: 'Events a subscriber gave up on (rejected, or every attempt failed)',
  },
  replayed: { name: 'parley_events_replayed_total', help: 'Dead letters acknowledged on replay' },
}

/** The type of a problem report in any protocol (`…/problem-report`). */
const PROBLEM_REPORT = /\/problem-report$/

/**
 * Creates the registry and starts counting what `sources` report.
 * @returns the registry to expose, and `close` to stop observing (shutdown).
 */
export function createMetrics(sources: MetricSources): { registry: Registry; close(): void } {
  const { agent, delivery, outbox, tunnel } = sources
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })

  const received = new Counter({
    name: 'parley_didcomm_messages_received_total',
    help: 'DIDComm messages processed, by message type',
    labelNames: ['type'],
    registers: [registry],
  })
  const sent = new Counter({
    name: 'parley_didcomm_messages_sent_total',
    help: 'DIDComm messages sent, by message type and outcome (SentToSession, SentToTransport, QueuedForPickup, Undeliverable)',
    labelNames: ['type', 'status'],
    registers: [registry],
  })
  const errors = new Counter({
    name: 'parley_didcomm_errors_total',
    help: 'DIDComm errors: inbound-rejected (an envelope POSTed over HTTP that could not be unpacked or processed), undeliverable (an outbound message no transport took), problem-report (a peer reported a problem)',
    labelNames: ['kind'],
    registers: [registry],
  })
  const onProcessed = ({ payload }: DidCommMessageProcessedEvent) => {
    received.inc({ type: payload.message.type })
    if (PROBLEM_REPORT.test(payload.message.type)) errors.inc({ kind: 'problem-report' })
  }
  const onSent = ({ payload }: DidCommMessageSentEvent) => {
    sent.inc({ type: payload.message.message.type, status: payload.status })
    if (payload.status === OutboundMessageSendStatus.Undeliverable) errors.inc({ kind: 'undeliverable' })
  }
  const onRejected = () => errors.inc({ kind: 'inbound-rejected' })
  agent.events.on<DidCommMessageProcessedEvent>(DidCommEventTypes.DidCommMessageProcessed, onProcessed)
  agent.events.on<DidCommMessageSentEvent>(DidCommEventTypes.DidCommMessageSent, onSent)
  agent.events.on<InboundMessageRejectedEvent>(INBOUND_MESSAGE_REJECTED, onRejected)

  const deliveries = Object.fromEntries(
    Object.entries(DELIVERY_COUNTERS).map(([status, { name, help }]) => [
      status,
      new Counter({ name, help, labelNames: ['subscriber'], registers: [registry] }),
    ]),
  ) as Record<DeliveryRecord['status'], Counter<'subscriber'>>
  const stopObserving = delivery.observe((record) => deliveries[record.status].inc({ subscriber: record.subscriber }))

  // Each gauge reads the lag itself at scrape: a collect of one gauge may run after the other is serialized.
  const lagGauge = (name: string, help: string, value: (lag: { pending: number; oldestCreatedAt: number }, now: number) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['subscriber'],
      registers: [registry],
      async collect() {
        const lags = await outbox.lag()
        const now = Date.now()
        this.reset()
        for (const subscriber of delivery.subscriberNames) this.set({ subscriber }, 0)
        for (const lag of lags) this.set({ subscriber: lag.subscriber }, value(lag, now))
      },
    })
  lagGauge(
    'parley_outbox_pending_events',
    'Events a subscriber has not had yet (neither acknowledged, dead-lettered nor filtered out)',
    (lag) => lag.pending,
  )
  lagGauge(
    'parley_outbox_lag_seconds',
    'Age of the oldest event a subscriber has not had yet; 0 when it is up to date',
    (lag, now) => Math.max(0, now - lag.oldestCreatedAt) / 1000,
  )

  if (tunnel) {
    new Gauge({
      name: 'parley_tunnel_connected',
      help: '1 while the tunnel to the edge worker is open',
      registers: [registry],
      collect() {
        this.set(tunnel.connected ? 1 : 0)
      },
    })
    new Gauge({
      name: 'parley_tunnel_awaiting_ack',
      help: 'Events sent up the tunnel and not yet acknowledged',
      registers: [registry],
      collect() {
        this.set(tunnel.pendingCount)
      },
    })
    new Gauge({
      name: 'parley_tunnel_round_trip_seconds',
      help: 'Round trip of the last WebSocket ping on the tunnel (absent before the first pong)',
      registers: [registry],
      collect() {
        this.reset()
        if (tunnel.roundTripMs !== undefined) this.set(tunnel.roundTripMs / 1000)
      },
    })
    new Gauge({
      name: 'parley_worker_counter',
      help: "Counters of the edge worker's tunnel gateway, asked through the tunnel at scrape (they only grow; absent while the tunnel is down)",
      labelNames: ['counter'],
      registers: [registry],
      async collect() {
        this.reset()
        const counters = await tunnel.requestStats().catch(() => ({}))
        for (const [counter, value] of Object.entries(counters)) this.set({ counter }, value)
      },
    })
  }

  return {
    registry,
    close() {
      stopObserving()
      agent.events.off<DidCommMessageProcessedEvent>(DidCommEventTypes.DidCommMessageProcessed, onProcessed)
      agent.events.off<DidCommMessageSentEvent>(DidCommEventTypes.DidCommMessageSent, onSent)
      agent.events.off<InboundMessageRejectedEvent>(INBOUND_MESSAGE_REJECTED, onRejected)
    },
  }
}
