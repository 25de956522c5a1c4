/**
 * A message the admin API accepted is sent at least once and received once, across a SIGKILL:
 * agent-node (child process, real SQLite) gets five `POST /v1/message` with Idempotency-Keys and
 * is killed with SIGKILL as soon as the first is answered 200, before its background sends can
 * finish. Restarted on the same DATA_DIR, it sends every accepted message still `created` (same
 * DIDComm `@id`), keeps what waits for pickup in its database, and the caller's retry of the five
 * POSTs (what the worker does with unacknowledged commands) sends what was never accepted. The
 * Credo wallet peer, reconnecting by itself, receives each text exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReceivedText } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { startKillableAgent, type KillableAgent } from '../support/killable-agent.ts'

const COUNT = 5

describe('accepted messages survive a SIGKILL right after the 200', () => {
  let stack: KillableAgent

  beforeAll(async () => {
    stack = await startKillableAgent('accepted')
  })
  afterAll(async () => {
    await stack?.stop()
  })

  it('delivers each accepted message once after SIGKILL, restart and the caller retrying', async () => {
    const { receiver, wallet } = stack
    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    await wallet.connect(url)
    const completed = await receiver.waitFor((e) => e.topic === 'connection-state-updated' && e.body.state === 'completed')
    const connectionId = String(completed.body.connectionId)
    const received: ReceivedText[] = []
    wallet.onText((text) => received.push(text))

    const post = (n: number) =>
      fetch(`${stack.agent.adminUrl}/v1/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `accepted-${n}` },
        body: JSON.stringify({ type: 'text', connectionId, content: `accepted ${n}` }),
      })
    const accepted = new Map<number, string>()
    let killed: Promise<void> | undefined
    const kill = () => (killed ??= stack.kill())
    await Promise.all(
      Array.from({ length: COUNT }, async (_, n) => {
        try {
          const response = await post(n)
          if (response.status !== 200) return
          accepted.set(n, ((await response.json()) as { id: string }).id)
          void kill() // on the first 200: the background sends have had no time
        } catch {
          // the process is gone: never accepted
        }
      }),
    )
    await kill()
    expect(accepted.size).toBeGreaterThan(0)

    await stack.restart()
    // the caller retries every command it has no answer for, and the accepted ones too
    for (let n = 0; n < COUNT; n++) {
      const response = await post(n)
      expect(response.status).toBe(200)
      const { id } = (await response.json()) as { id: string }
      if (accepted.has(n)) expect(id).toBe(accepted.get(n))
    }

    // a marker after the retries; a message re-sent at start-up may come through the pickup queue
    // after it, so each accepted text is also waited for
    const marker = wallet.nextText((text) => text.content === 'marker', 60_000)
    const markerPost = await fetch(`${stack.agent.adminUrl}/v1/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'text', connectionId, content: 'marker' }),
    })
    expect(markerPost.status).toBe(200)
    await marker
    const missing = () =>
      Array.from({ length: COUNT }, (_, n) => `accepted ${n}`).filter((content) => !received.some((text) => text.content === content))
    await expect.poll(missing, { timeout: 60_000, interval: 250 }).toEqual([])
    for (let n = 0; n < COUNT; n++) {
      const copies = received.filter((text) => text.content === `accepted ${n}`)
      expect(copies, `accepted ${n}`).toHaveLength(1)
      if (accepted.has(n)) expect(copies[0]!.id).toBe(accepted.get(n))
    }
  })
})
