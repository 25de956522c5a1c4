/**
 * Health and metrics on the admin port of an in-process agent-node, after real traffic: a Credo
 * wallet over WebSocket sends and receives texts, webhooks are retried once, a subscription
 * rejects events (dead letters), a forged envelope is POSTed. `/metrics` counts all of it; `/healthz` and `/readyz` answer;
 * `/readyz` turns 503 while a subscriber is further behind than READY_MAX_OUTBOX_LAG_SECONDS. A
 * webhook the configuration no longer has does not make the agent unready, and its events are
 * kept for it only for EVENTS_RETENTION_DAYS after the start that found it missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts'
import { rmSync } from 'node:fs'
import { type AgentNode, DEFAULT_WEBHOOK_SUBSCRIBER, startAgentNode } from '../../src/app.ts'
import { RetentionPruner } from '../../src/retention/pruner.ts'
import { connectWallet, startTestAgentNode, useTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'
import { scrape, scrapeUntil, sampleValue } from '../support/prometheus.ts'
import { dialects } from '../support/temp-databases.ts'
import { useSuiteResource } from '../support/suite-resource.ts'

const BASIC_MESSAGE = 'https://didcomm.org/basicmessage/1.0/message'

const metricsOf = (agent: TestAgentNode) => `${agent.adminUrl}/metrics`

describe.each(dialects)('health and metrics on the admin port after DIDComm traffic, %s', (dialect) => {
  const rejecting = useSuiteResource(
    () => startEventReceiver({ status: () => 400 }),
    (r) => r.close(),
  )
  const started = useTestAgentNode(dialect)
  let wallet: WalletPeer
  beforeAll(async () => {
    wallet = await WalletPeer.create({ label: `metrics-wallet-${dialect}`, logger: createLogger('silent', 'wallet') })
  })
  afterAll(async () => {
    await wallet?.stop()
  })

  it('answers /healthz and /readyz with the database ok and no tunnel configured', async () => {
    const health = await started.agent.admin('/healthz')
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ ok: true })
    const ready = await started.agent.admin('/readyz')
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({
      ready: true,
      checks: { database: { ok: true }, tunnel: { ok: true, state: 'not-configured' }, outbox: { ok: true, maxLagSeconds: 300 } },
    })
  })

  it('counts DIDComm messages in and out by type, and deliveries, retries and dead letters per subscriber', async () => {
    const { agent } = started
    const subscription = await agent.subscribe({ url: rejecting().url, topics: ['message-received'] })
    const rejectedBy = `subscription:${subscription.id}`
    const { connectionId, walletConnectionId } = await connectWallet(agent.node, agent.adminUrl, wallet)
    const reply = wallet.nextText((m) => m.content === 'from the agent')
    expect((await agent.postMessage({ type: 'text', connectionId, content: 'from the agent' })).status).toBe(200)
    await reply
    await wallet.sendText(walletConnectionId, 'from the wallet')

    const samples = await scrapeUntil(
      metricsOf(agent),
      // one scrape once showed the dead letter counted and the lag not yet back to 0: wait for both
      (s) =>
        (sampleValue(s, 'parley_didcomm_messages_received_total', { type: BASIC_MESSAGE }) ?? 0) >= 1 &&
        (sampleValue(s, 'parley_events_dead_lettered_total', { subscriber: rejectedBy }) ?? 0) >= 1 &&
        sampleValue(s, 'parley_outbox_lag_seconds', { subscriber: rejectedBy }) === 0,
    )
    expect(sampleValue(samples, 'parley_didcomm_messages_sent_total', { type: BASIC_MESSAGE })).toBeGreaterThanOrEqual(1)
    expect(samples.some((s) => s.name === 'parley_didcomm_messages_received_total' && s.labels.type!.includes('didexchange'))).toBe(true)
    expect(sampleValue(samples, 'parley_events_dead_lettered_total', { subscriber: rejectedBy })).toBe(1)
    expect(sampleValue(samples, 'parley_events_delivered_total', { subscriber: rejectedBy })).toBeUndefined()
    expect(sampleValue(samples, 'parley_outbox_lag_seconds', { subscriber: rejectedBy })).toBe(0)
    expect(sampleValue(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0)
  })

  it('counts an envelope POSTed to the public port that cannot be unpacked as a DIDComm error', async () => {
    const { agent } = started
    const before = sampleValue(await scrape(metricsOf(agent)), 'parley_didcomm_errors_total', { kind: 'inbound-rejected' }) ?? 0
    const envelope = {
      protected: Buffer.from('{"enc":"xchacha20poly1305_ietf","typ":"JWM/1.0","alg":"Authcrypt","recipients":[]}').toString('base64url'),
      iv: 'AAAA',
      ciphertext: 'AAAA',
      tag: 'AAAA',
    }
    const answer = await fetch(`http://127.0.0.1:${agent.node.publicPort}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/didcomm-envelope-enc' },
      body: JSON.stringify(envelope),
    })
    expect(answer.status).toBe(400)
    const samples = await scrape(metricsOf(agent))
    expect(sampleValue(samples, 'parley_didcomm_errors_total', { kind: 'inbound-rejected' })).toBe(before + 1)
  })
})

describe('metrics of webhook retries, and /readyz while a subscriber lags', () => {
  let webhookRequests = 0
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let receiver: EventReceiver
  let slow: EventReceiver
  let agent: TestAgentNode
  beforeAll(async () => {
    receiver = await startEventReceiver({ status: () => (++webhookRequests === 1 ? 503 : 204) })
    // answers nothing until released: its events stay pending
    slow = await startEventReceiver({
      status: async () => {
        await released
        return 204
      },
    })
    agent = await startTestAgentNode(
      { EVENTS_BASE_URL: receiver.url, READY_MAX_OUTBOX_LAG_SECONDS: '0.2', EVENTS_TIMEOUT_MS: '60000' },
      { label: 'readiness' },
    )
  })
  afterAll(async () => {
    release()
    await agent?.close()
    await receiver?.close()
    await slow?.close()
  })

  it('counts a failed webhook attempt as a retry, then the delivery', async () => {
    const connectionId = '88888888-8888-4888-8888-888888888888'
    agent.node.events.publish({
      type: 'connection-state-updated',
      connectionId,
      invitationId: '56565656-5656-4656-8656-565656565656',
      state: 'completed',
    })
    const samples = await scrapeUntil(
      metricsOf(agent),
      (s) => (sampleValue(s, 'parley_events_delivered_total', { subscriber: DEFAULT_WEBHOOK_SUBSCRIBER }) ?? 0) >= 1,
    )
    expect(sampleValue(samples, 'parley_events_retried_total', { subscriber: DEFAULT_WEBHOOK_SUBSCRIBER })).toBe(1)
    expect(sampleValue(samples, 'parley_events_delivered_total', { subscriber: DEFAULT_WEBHOOK_SUBSCRIBER })).toBe(1)
  })

  it('is not ready while the oldest pending event is older than the limit, and ready again once delivered', async () => {
    const subscription = await agent.subscribe({ url: slow.url })
    const subscriber = `subscription:${subscription.id}`
    agent.node.events.publish({
      type: 'connection-state-updated',
      connectionId: '99999999-9999-4999-8999-999999999999',
      invitationId: '56565656-5656-4656-8656-565656565656',
      state: 'completed',
    })

    const readiness = async () => {
      const response = await agent.admin('/readyz')
      return {
        status: response.status,
        body: (await response.json()) as { checks: { outbox: { ok: boolean; subscriber?: string; lagSeconds?: number } } },
      }
    }
    let answer = await readiness()
    for (let i = 0; i < 200 && answer.status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await readiness()
    }
    expect(answer.status).toBe(503)
    expect(answer.body.checks.outbox).toMatchObject({ ok: false, subscriber })
    const samples = await scrape(metricsOf(agent))
    expect(sampleValue(samples, 'parley_outbox_pending_events', { subscriber })).toBe(1)
    expect(sampleValue(samples, 'parley_outbox_lag_seconds', { subscriber })).toBeGreaterThan(0.2)

    release()
    for (let i = 0; i < 200 && answer.status === 503; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await readiness()
    }
    expect(answer.status).toBe(200)
  })
})

describe('a webhook the configuration no longer has', () => {
  const DAY = 24 * 60 * 60 * 1000
  /** A pruner of `node`'s outbox with EVENTS_RETENTION_DAYS 7. */
  const retention = (node: AgentNode) =>
    new RetentionPruner(node.outbox, { eventsDays: 7, deadLettersDays: 30, recordsDays: 0 }, createLogger('silent'))

  it('keeps its events for EVENTS_RETENTION_DAYS and shows its lag in /metrics, but does not make the agent unready', async () => {
    // never answers: the event stays pending
    const silent = await startEventReceiver({ status: () => new Promise<number>(() => {}) })
    const agent = await startTestAgentNode(
      { EVENTS_BASE_URL: silent.url, READY_MAX_OUTBOX_LAG_SECONDS: '0.2', EVENTS_TIMEOUT_MS: '60000' },
      { label: 'unconfigured' },
    )
    let restarted: AgentNode | undefined
    try {
      agent.node.events.publish({
        type: 'connection-state-updated',
        connectionId: '77777777-7777-4777-8777-777777777777',
        invitationId: '56565656-5656-4656-8656-565656565656',
        state: 'completed',
      })
      await expect.poll(async () => (await agent.node.outbox.lag()).map((lag) => lag.subscriber)).toEqual([DEFAULT_WEBHOOK_SUBSCRIBER])
      // configured, the webhook holds its event however old
      const pruneAt = Date.now() + 8 * DAY
      expect(await retention(agent.node).run(pruneAt)).toEqual({ events: 0, deadLetters: 0 })
      await agent.node.stop()
      restarted = await startAgentNode({ ...agent.config, eventsBaseUrl: undefined }, createLogger('silent'))
      const metrics = `http://127.0.0.1:${restarted.adminPort}/metrics`
      const webhook = { subscriber: DEFAULT_WEBHOOK_SUBSCRIBER }
      // once its lag is past the limit
      await expect.poll(async () => sampleValue(await scrape(metrics), 'parley_outbox_lag_seconds', webhook)).toBeGreaterThan(0.2)
      const ready = await fetch(`http://127.0.0.1:${restarted.adminPort}/readyz`)
      expect(ready.status).toBe(200)
      expect(sampleValue(await scrape(metrics), 'parley_outbox_pending_events', webhook)).toBe(1)
      // absent since this start, for longer than 7 days at `pruneAt`: its event is no longer kept
      expect(await retention(restarted).run(pruneAt)).toEqual({ events: 1, deadLetters: 0 })
    } finally {
      await restarted?.stop()
      rmSync(agent.config.dataDir, { recursive: true, force: true })
      await silent.close()
    }
  })
})
