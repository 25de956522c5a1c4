/**
 * Inbound backpressure and durability with real processes: a Credo wallet peer sends bursts of
 * texts over WebSocket to agent-node (child process, real SQLite). `/health` answers during a
 * burst, while envelopes wait in its inbox (the inbox works off one envelope per event-loop turn,
 * not the whole backlog in one go); every text of a burst becomes a `message-received`. Then
 * agent-node is killed with SIGKILL in the middle of a burst: every envelope it had read (stored
 * in its inbox, counted in the database after the kill) is processed after the restart (the
 * inbox empties) and every text processed is reported.
 */
import { get } from 'node:http'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { selectRows } from '../../agent-node/src/database/dialect.ts'
import { openDatabase, type Database } from '../../agent-node/src/database/index.ts'
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
  const until = async (condition: () => boolean | Promise<boolean>, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not met in time')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
  /** Envelopes stored in agent-node's inbox and not yet processed (read from its database while it runs). */
  const inboxSize = async (database: Database) =>
    Number((await selectRows<{ n: number }>(database, sql`SELECT COUNT(*) AS n FROM didcomm_inbox`))[0]!.n)
  /** Distinct texts starting with `prefix` of the `message-received` events stored in the outbox. */
  const receivedTexts = async (database: Database, prefix: string) =>
    new Set(
      (await selectRows<{ body: string }>(database, sql`SELECT body FROM event_outbox WHERE topic = 'message-received'`))
        .map((row) => (JSON.parse(row.body) as { message: { content: string } }).message.content)
        .filter((content) => content.startsWith(prefix)),
    )
  /**
   * GET on a connection of its own (`fetch` could reuse a keep-alive connection the wallet left in
   * the pool, which the server may close just as it is reused).
   */
  const getOnNewConnection = (url: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      get(url, { agent: false }, (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      }).on('error', reject)
    })
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

  it('answers /health during a burst, with envelopes waiting in the inbox, and reports every text of it', async () => {
    const sending = burst('first')
    const watcher = await openDatabase(join(stack.dataDir, 'agent.sqlite'))
    try {
      await until(async () => (await inboxSize(watcher)) >= BACKLOG, 60_000)
      const health = await getOnNewConnection(`${stack.agent.publicUrl}/health`)
      expect(health).toEqual({ status: 200, body: '{"ok":true}' })
      expect(await inboxSize(watcher)).toBeGreaterThan(0) // answered while the backlog was being worked off
    } finally {
      await watcher.close()
    }
    await sending
    await until(() => reported('first').size === BURST, 120_000)
    expect(connectionId).not.toBe('')
  })

  it('loses nothing it read when killed with SIGKILL mid-burst: the stored envelopes are processed after the restart', async () => {
    // kill once the inbox holds a backlog of this burst (read from the database while agent-node
    // runs): the first burst's envelopes are gone first (processed ones are deleted in batches)
    const watcher = await openDatabase(join(stack.dataDir, 'agent.sqlite'))
    try {
      await until(async () => (await inboxSize(watcher)) === 0, 60_000)
      void burst('second')
      const deadline = Date.now() + 60_000
      while ((await inboxSize(watcher)) < BACKLOG && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
      await stack.kill()
    } finally {
      await watcher.close()
    }
    const before = reported('second').size
    const database = await openDatabase(join(stack.dataDir, 'agent.sqlite'))
    let stored: number
    try {
      stored = await inboxSize(database)
    } finally {
      await database.close()
    }
    expect(stored).toBeGreaterThan(0) // the kill came during a backlog

    await stack.restart()
    // Every stored envelope is processed after the restart: the inbox empties (an envelope is
    // deleted only once processed and its events stored), and every text processed is reported.
    // Those processed and not yet deleted at the kill (deletes go in batches, and the one being
    // processed) are processed again without a second message-received.
    const after = await openDatabase(join(stack.dataDir, 'agent.sqlite'))
    try {
      await until(async () => (await inboxSize(after)) === 0, 120_000)
      const processed = await receivedTexts(after, 'second')
      expect(processed.size).toBeGreaterThanOrEqual(before)
      await until(() => reported('second').size === processed.size, 120_000)
      expect(reported('second')).toEqual(processed)
    } finally {
      await after.close()
    }
  })
})
