/**
 * Operating the real stack (agent-node and the edge worker in workerd joined by the tunnel, a
 * Credo wallet over WebSocket, the scripted LLM): after a chat, agent-node's `/readyz` reports
 * the tunnel connected, `/metrics` shows the tunnel's state and round trip, the deliveries to the
 * tunnel and the worker's own counters (asked through the tunnel), and both sides' debug logs
 * name the same event ids and command ids: the wallet's message is followed by its event id from
 * agent-node's delivery through the worker's handling to the reply command and its message id.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { sampleValue, scrapeUntil } from '@parley/agent-node/testing/prometheus'
import { startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

/** The JSON log lines of `output` (agent-node: pino's `msg`; worker: `message`) with `message`. */
function logLines(output: string, message: string): Record<string, unknown>[] {
  return output.split('\n').flatMap((line) => {
    const start = line.indexOf('{')
    if (start < 0) return []
    try {
      const entry = JSON.parse(line.slice(start)) as Record<string, unknown>
      return entry.msg === message || entry.message === message ? [entry] : []
    } catch {
      return []
    }
  })
}

describe('health, metrics and correlated logs of the running stack', () => {
  let llm: ScriptedLlm
  let stack: LocalStack
  let wallet: WalletPeer
  let dataDir: string

  beforeAll(async () => {
    llm = await startScriptedLlm({ reply: (messages) => `echo: ${messages.at(-1)?.content}` })
    dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-ops-'))
    stack = await startLocalStack({
      workerVars: { COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'test-key', COMPAT_MODEL: 'scripted-model', LOG_LEVEL: 'debug' },
      agentEnv: { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'debug' },
    })
    wallet = await WalletPeer.create({ label: 'ops wallet', logger: createLogger('error', 'wallet') })
    const invitation = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    const connectionId = await wallet.connect(invitation.url)
    const reply = wallet.nextText((m) => m.content === 'echo: are you there?')
    await wallet.sendText(connectionId, 'are you there?')
    await reply
  })

  afterAll(async () => {
    await wallet?.stop()
    await stack?.stop()
    await llm?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('is ready with the tunnel connected', async () => {
    const response = await fetch(`${stack.agent.adminUrl}/readyz`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      ready: true,
      checks: { database: { ok: true }, tunnel: { ok: true, state: 'connected' } },
    })
  })

  it('exposes the tunnel state and round trip, deliveries to the tunnel and the worker counters', async () => {
    // the events the chat made are all acknowledged by the worker
    const samples = await scrapeUntil(
      `${stack.agent.adminUrl}/metrics`,
      (s) => sampleValue(s, 'parley_outbox_pending_events', { subscriber: 'tunnel' }) === 0,
    )
    expect(sampleValue(samples, 'parley_tunnel_connected')).toBe(1)
    expect(sampleValue(samples, 'parley_tunnel_round_trip_seconds')).toBeGreaterThan(0)
    expect(sampleValue(samples, 'parley_events_delivered_total', { subscriber: 'tunnel' })).toBeGreaterThanOrEqual(2)
    // the worker acknowledged at least what agent-node counts as delivered to it
    expect(sampleValue(samples, 'parley_worker_counter', { counter: 'events_acknowledged' })).toBeGreaterThanOrEqual(
      sampleValue(samples, 'parley_events_delivered_total', { subscriber: 'tunnel' })!,
    )
    expect(sampleValue(samples, 'parley_worker_counter', { counter: 'agent_connections' })).toBeGreaterThanOrEqual(1)
    expect(sampleValue(samples, 'parley_worker_counter', { counter: 'command_results_ok' })).toBeGreaterThanOrEqual(2) // greeting and reply
  })

  it('logs the same event ids and command ids on both sides of the tunnel', async () => {
    await scrapeUntil(
      `${stack.agent.adminUrl}/metrics`,
      (s) => sampleValue(s, 'parley_outbox_pending_events', { subscriber: 'tunnel' }) === 0,
    )
    const sent = logLines(stack.agent.output(), 'event sent up the tunnel').map((entry) => entry.eventId)
    const stored = new Set(logLines(stack.worker.output(), 'event stored').map((entry) => entry.eventId))
    expect(sent.length).toBeGreaterThanOrEqual(2)
    for (const eventId of sent) expect(stored).toContain(eventId)

    const queued = logLines(stack.worker.output(), 'command queued').map((entry) => entry.commandId)
    const done = new Set(logLines(stack.agent.output(), 'tunnel command done').map((entry) => entry.commandId))
    expect(queued.length).toBeGreaterThanOrEqual(2)
    for (const commandId of queued) expect(done).toContain(commandId)
  })

  it("follows the chat message's event id from agent-node through the worker to the reply's message id", async () => {
    const sent = logLines(stack.agent.output(), 'event sent up the tunnel').filter((entry) => entry.type === 'message-received')
    expect(sent).toHaveLength(1)
    const eventId = sent[0]!.eventId
    const withEvent = (lines: Record<string, unknown>[]) => lines.filter((entry) => entry.eventId === eventId)
    expect(withEvent(logLines(stack.agent.output(), 'event acknowledged by the worker'))).toHaveLength(1)
    expect(withEvent(logLines(stack.worker.output(), 'event stored'))).toHaveLength(1)
    expect(withEvent(logLines(stack.worker.output(), 'event handled'))).toEqual([expect.objectContaining({ commands: 1 })])
    const [queued] = withEvent(logLines(stack.worker.output(), 'command queued'))
    expect(queued).toMatchObject({ idempotencyKey: `${eventId}:0` })
    await scrapeUntil(
      `${stack.agent.adminUrl}/metrics`,
      (s) => (sampleValue(s, 'parley_worker_counter', { counter: 'command_results_ok' }) ?? 0) >= 2,
    )
    const [done] = withEvent(logLines(stack.agent.output(), 'tunnel command done'))
    expect(done).toMatchObject({ commandId: queued!.commandId, idempotencyKey: `${eventId}:0`, messageId: expect.any(String) })
    expect(withEvent(logLines(stack.worker.output(), 'command done'))).toEqual([
      expect.objectContaining({ commandId: queued!.commandId, messageId: done!.messageId }),
    ])
  })
})
