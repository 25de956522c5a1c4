/**
 * Inbound backpressure and durability with real processes: a Credo wallet peer sends bursts of
 * texts over WebSocket to agent-node (child process, real SQLite). `/health` answers during a
 * burst; every text of a burst becomes a `message-received`. Then agent-node is killed with
 * SIGKILL in the middle of a burst: every envelope it had read (stored in its inbox, counted in
 * the database after the kill) is processed after the restart and reported.
 */
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { selectRows } from '../../agent-node/src/database/dialect.ts'
import { openDatabase } from '../../agent-node/src/database/index.ts'
import { startKillableAgent, type KillableAgent } from '../support/killable-agent.ts'

const BURST = 150
/** Envelopes waiting in the inbox at which the test kills agent-node. */
const BACKLOG = 5

describe('inbound DIDComm bursts', () => {
  let stack: KillableAgent
  let connectionId = ''
  let walletConnectionId = ''

  /** Distinct texts reported as `message-received` so far that start with `prefix`. */
  const reported = (prefix: string) =>
    new Set(
      stack.receiver.events
        .filter((e) => e.topic === 'message-received')
        .map((e) => (e.body.message as { content: string }).content)
        .filter((c) => c.startsWith(prefix)),
    )
  const until = async (condition: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in time')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const burst = (prefix: string) =>
    Promise.allSettled(Array.from({ length: BURST }, (_, n) => stack.wallet.sendText(walletConnectionId, `${prefix} ${n}`)))

  beforeAll(async () => {
    stack = await startKillableAgent('inbound-burst')
    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    walletConnectionId = await stack.wallet.connect(url)
    const completed = await stack.receiver.waitFor((e) => e.topic === 'connection-state-updated' && e.body.state === 'completed')
    connectionId = String(completed.body.connectionId)
  })
  afterAll(async () => {
    await stack?.stop()
  })

  it('answers /health during a burst and reports every text of it', async () => {
    const sending = burst('first')
    await until(() => reported('first').size > 0, 60_000)
    const health = await fetch(`${stack.agent.publicUrl}/health`)
    expect(health.status).toBe(200)
    await sending
    await until(() => reported('first').size === BURST, 120_000)
    expect(connectionId).not.toBe('')
  })

  it('loses nothing it read when killed with SIGKILL mid-burst: the stored envelopes are processed after the restart', async () => {
    void burst('second')
    // kill once the inbox holds a backlog (read from the database while agent-node runs)
    const watcher = await openDatabase(join(stack.dataDir, 'agent.sqlite'))
    const inboxSize = async () => Number((await selectRows<{ n: number }>(watcher, sql`SELECT COUNT(*) AS n FROM didcomm_inbox`))[0]!.n)
    try {
      const deadline = Date.now() + 60_000
      while ((await inboxSize()) < BACKLOG && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
      await stack.kill()
    } finally {
      await watcher.close()
    }
    const before = reported('second').size
    const database = await openDatabase(join(stack.dataDir, 'agent.sqlite'))
    let stored: number
    try {
      const [row] = await selectRows<{ n: number }>(database, sql`SELECT COUNT(*) AS n FROM didcomm_inbox`)
      stored = Number(row!.n)
    } finally {
      await database.close()
    }
    expect(stored).toBeGreaterThan(0) // the kill came during a backlog

    await stack.restart()
    // at most one stored envelope (the one being processed at the kill) was reported already
    await until(() => reported('second').size >= before + stored - 1, 120_000)
    const after = await openDatabase(join(stack.dataDir, 'agent.sqlite'))
    try {
      const [row] = await selectRows<{ n: number }>(after, sql`SELECT COUNT(*) AS n FROM didcomm_inbox`)
      expect(Number(row!.n)).toBe(0)
    } finally {
      await after.close()
    }
  })
})
