/**
 * Fault test: the conversation Durable Object reset in the middle of a burst of chat messages,
 * with the real worker in workerd, agent-node as a child process on real SQLite, a Credo wallet
 * peer over WebSocket and the scripted LLM. The reset is the runtime's kind (`ctx.abort`, through
 * the test hook `POST /test-hooks/conversations/:connectionId/reset` of the Worker's test entry,
 * `edge-worker/test/entry/`): the instance ends and the calls it was serving fail (an event being stored,
 * the alarm answering), its storage stays. Resets land between messages and, once for sure,
 * while the alarm waits for the model's answer to one message. Asserted: that answer is made
 * again after the reset, and every message is answered exactly once.
 *
 * Why that holds: an event whose store was cut off is not acknowledged, so agent-node sends it
 * again (same id; dropped if it was in fact stored); an answer cut off is redone by the retried
 * alarm (or re-sent from the effect log once committed), and its `send-message` command carries
 * the idempotency key `<event id>:<step>`, which agent-node claims once.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

/** The message whose answer is cut off by a reset (the alarm is waiting for the model). */
const HELD_TEXT = 'burst 4'

describe('the conversation Durable Object reset mid-burst', () => {
  let heldOnce = false
  let answering!: () => void
  const answeringHeld = new Promise<void>((resolve) => (answering = resolve))
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let llm: ScriptedLlm
  let stack: LocalStack
  let wallet: WalletPeer
  let dataDir: string

  beforeAll(async () => {
    llm = await startScriptedLlm({
      reply: async (messages) => {
        const text = String(messages.at(-1)?.content)
        // The first answer of HELD_TEXT waits for the test: the object is reset while answering it.
        if (text === HELD_TEXT && !heldOnce) {
          heldOnce = true
          answering()
          await released
        }
        return `echo: ${text}`
      },
    })
    dataDir = mkdtempSync(join(tmpdir(), 'parley-faults-reset-'))
    stack = await startLocalStack({
      workerVars: { COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'test-key', COMPAT_MODEL: 'scripted-model' },
      workerEntry: 'edge-worker/test/entry/index.ts',
      agentEnv: { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'warn' },
    })
    wallet = await WalletPeer.create({ label: 'reset fault wallet', logger: createLogger('fatal', 'wallet') })
  })

  afterAll(async () => {
    await wallet?.stop()
    await stack?.stop()
    await llm?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const reset = (connectionId: string, secret = stack.tunnelSecret) =>
    fetch(`${stack.worker.url}/test-hooks/conversations/${connectionId}/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}` },
    })

  /** A reset's status and body, so that a failure shows who answered (the hook, or a proxy in front of it). */
  const answer = async (response: Response) => ({ status: response.status, body: await response.text() })
  const RESET = { status: 202, body: JSON.stringify({ reset: true }) }

  it('answers every message exactly once when the object is reset between and during them', async () => {
    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    const greeting = wallet.nextText()
    const walletConnectionId = await wallet.connect(url)
    await greeting
    const [connection] = (await (await fetch(`${stack.agent.adminUrl}/v1/connections`)).json()) as { id: string }[]
    const connectionId = connection!.id

    expect((await reset(connectionId, 'wrong-secret')).status).toBe(401)

    const echoes: string[] = []
    let allAnswered!: () => void
    const answered = new Promise<void>((resolve) => (allAnswered = resolve))
    const off = wallet.onText((message) => {
      if (!message.content.startsWith('echo: burst')) return
      echoes.push(message.content)
      if (new Set(echoes).size === 12) allAnswered()
    })
    const texts = Array.from({ length: 12 }, (_, i) => `burst ${i}`)
    const resets: Promise<Response>[] = []
    for (const [i, text] of texts.entries()) {
      await wallet.sendText(walletConnectionId, text)
      // Not awaited: the reset lands while the object stores this event or answers earlier ones.
      if (i % 3 === 1) resets.push(reset(connectionId))
    }
    for (const response of await Promise.all(resets)) expect(await answer(response)).toEqual(RESET)
    // A reset while the alarm is answering HELD_TEXT: that answer is lost with the instance.
    await answeringHeld
    expect(await answer(await reset(connectionId))).toEqual(RESET)
    release()

    await answered
    // A marker, answered after every burst message (the alarm answers in sequence order).
    const marker = wallet.nextText((m) => m.content === 'echo: marker', 180_000)
    await wallet.sendText(walletConnectionId, 'marker')
    await marker
    off()
    // The cut-off answer was made again (a second model call), yet sent once.
    const heldCalls = llm.requests.filter((r) => r.messages.at(-1)?.content === HELD_TEXT)
    expect(heldCalls.length).toBeGreaterThanOrEqual(2)
    // Every message answered exactly once (replies travel as separate DIDComm messages and may interleave).
    expect([...echoes].sort()).toEqual(texts.map((t) => `echo: ${t}`).sort())
  }, 300_000)
})
