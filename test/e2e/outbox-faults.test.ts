/**
 * Fault tests of the event outbox with real processes: agent-node (child process, real SQLite)
 * is killed with SIGKILL in the middle of a burst and restarted on the same DATA_DIR. A Credo
 * wallet peer over WebSocket makes the connection; the controller is a webhook receiver that
 * dedupes by `webhook-id`, as docs/events.md asks controllers to. Asserted: every stored event
 * arrives, each connection's events in order, no duplicate effects, and every message the admin
 * API accepted has its `created` event. Then the tunnel: the worker (workerd) is stopped in the
 * middle of a burst of chat messages and started again on its storage; every message is
 * answered exactly once.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { startLocalStack, startWorker, type LocalStack } from '../../scripts/local-stack.ts'
import { explainFailure, lastStackOutput } from '../support/diagnosis.ts'
import { startKillableAgent, type KillableAgent } from '../support/killable-agent.ts'
import type { EventReceiver, ReceivedEvent } from '@parley/agent-node/testing/event-receiver'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

/** What a controller that drops duplicates by `webhook-id` applied, in order: each id once. */
function applied(receiver: EventReceiver): ReceivedEvent[] {
  const seen = new Set<string>()
  return receiver.events.filter((e) => {
    const id = String(e.headers['webhook-id'])
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}

describe('the outbox survives agent-node being killed with SIGKILL mid-burst', () => {
  let stack: KillableAgent

  beforeAll(async () => {
    stack = await startKillableAgent('faults', { EVENTS_RETRY_BASE_MS: '50', EVENTS_RETRY_MAX_MS: '500' })
  })

  afterAll(async () => {
    await stack?.stop()
  })

  it('delivers every stored event, in order per connection, after a restart on the same DATA_DIR', async () => {
    const { receiver, wallet } = stack
    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    await wallet.connect(url)
    const completed = await receiver.waitFor((e) => e.topic === 'connection-state-updated' && e.body.state === 'completed')
    const connectionId = String(completed.body.connectionId)

    // The burst: messages posted 8 at a time; SIGKILL once the controller has seen 40 events.
    const accepted: string[] = []
    let killed = false
    const post = async (n: number) => {
      try {
        const response = await fetch(`${stack.agent.adminUrl}/v1/message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `burst-${n}` },
          body: JSON.stringify({ type: 'text', connectionId, content: `burst ${n}` }),
        })
        if (response.ok) accepted.push(((await response.json()) as { id: string }).id)
      } catch {
        // refused: the process is gone
      }
    }
    const burst = (async () => {
      for (let n = 0; n < 400 && !killed; n += 8) await Promise.all(Array.from({ length: 8 }, (_, i) => post(n + i)))
    })()
    await receiver.waitFor(() => receiver.events.length >= 40, 60_000)
    await stack.kill()
    killed = true
    await burst
    const eventsBeforeRestart = receiver.events.length

    const agent = await stack.restart()
    // A marker after the restart: once its `created` arrived, everything stored before it has.
    const marker = await fetch(`${agent.adminUrl}/v1/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'text', connectionId, content: 'after the restart' }),
    })
    expect(marker.status).toBe(200)
    const markerId = ((await marker.json()) as { id: string }).id
    const markerEvent = await receiver.waitFor((e) => e.body.messageId === markerId && e.body.state === 'created', 60_000)
    const lastSeq = Number(markerEvent.headers['x-parley-event-seq'])

    const events = applied(receiver).filter((e) => e.body.connectionId === connectionId)
    const seqs = events.map((e) => Number(e.headers['x-parley-event-seq']))
    expect(seqs.slice(0, seqs.indexOf(lastSeq) + 1)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1))
    const created = new Set(events.filter((e) => e.body.state === 'created').map((e) => String(e.body.messageId)))
    for (const id of accepted) expect(created.has(id)).toBe(true)
    // Each message reports `created` once, before any later state of it.
    for (const id of accepted) {
      const states = events.filter((e) => e.body.messageId === id).map((e) => e.body.state)
      expect(states[0]).toBe('created')
      expect(states.filter((s) => s === 'created')).toHaveLength(1)
    }
    expect(accepted.length).toBeGreaterThan(0)
    expect(eventsBeforeRestart).toBeGreaterThanOrEqual(40)
  })
})

describe('the tunnel on the outbox survives the worker going away mid-burst', () => {
  let llm: ScriptedLlm
  let stack: LocalStack
  let wallet: WalletPeer
  let dataDir: string
  const workerVars = () => ({ COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'test-key', COMPAT_MODEL: 'scripted-model' })

  beforeAll(async () => {
    llm = await startScriptedLlm({ reply: (messages) => `echo: ${messages.at(-1)?.content}` })
    dataDir = mkdtempSync(join(tmpdir(), 'parley-faults-tunnel-'))
    stack = await startLocalStack({
      workerVars: workerVars(),
      // info: the tunnel's connects and closes are in the report of a failed wait
      agentEnv: { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'info' },
    })
    wallet = await WalletPeer.create({ label: 'tunnel fault wallet', logger: createLogger('fatal', 'wallet') })
  })

  afterAll(async () => {
    await wallet?.stop()
    await stack?.stop()
    await llm?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers every message exactly once after the tunnel is dropped and restored', async () => {
    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    const greeting = wallet.nextText()
    const connectionId = await wallet.connect(url)
    await greeting
    const echoes: string[] = []
    const off = wallet.onText((message) => {
      if (message.content.startsWith('echo: burst')) echoes.push(message.content)
    })
    // A wait that gives up says what arrived and what the processes printed last (the test's own timeout would not).
    const report = () => `echoes so far: ${echoes.join(', ') || 'none'}\n${lastStackOutput(stack)}`
    const texts = Array.from({ length: 12 }, (_, i) => `burst ${i}`)
    const firstEcho = wallet.nextText((m) => m.content === 'echo: burst 0', 30_000)
    for (const text of texts.slice(0, 6)) await wallet.sendText(connectionId, text)
    await explainFailure(firstEcho, report)
    // Drop the tunnel: the worker goes away while messages keep coming, then returns on its storage.
    const { port, persistTo } = stack.worker
    await stack.worker.stop()
    for (const text of texts.slice(6)) await wallet.sendText(connectionId, text)
    stack.worker = await startWorker({ port, persistTo, vars: { TUNNEL_SECRET: stack.tunnelSecret, ...workerVars() } })

    await explainFailure(
      wallet.nextText((m) => m.content === 'echo: burst 11', 90_000),
      report,
    )
    const marker = wallet.nextText((m) => m.content === 'echo: marker', 30_000)
    await wallet.sendText(connectionId, 'marker')
    await explainFailure(marker, report)
    off()
    // Each answered exactly once (replies travel as separate DIDComm messages, so the wallet may see them interleave).
    expect([...echoes].sort()).toEqual(texts.map((t) => `echo: ${t}`).sort())
  }, 240_000)
})
