/**
 * More than one agent-node (issue 17): two agent-node processes on ONE PostgreSQL database
 * behind a TCP load balancer (one public endpoint, one public DID), each with its own tunnel to
 * the one worker in workerd (scripted LLM: it echoes), a webhook receiver on EVENTS_BASE_URL and
 * two real Credo wallets, one connected through each instance.
 *
 * Both start at once on the empty database. Asserted: one public DID; both tunnels are accepted
 * and stay up; both wallets chat, their messages entering through either instance, each
 * answered once; the webhook receives every event of the outbox, none twice. Then the instance
 * holding the tunnel's delivery lease is killed (SIGKILL) during a burst from both wallets: every
 * message that reached an agent (its `message-received` is in the outbox) is answered exactly
 * once, the other wallet's messages all reach the survivor, the webhook still receives every
 * event, and the survivor holds the leases.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { selectRows } from '../../agent-node/src/database/dialect.ts'
import { openDatabase, type Database } from '../../agent-node/src/database/index.ts'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer, type ReceivedText } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { freePort, startAgentNodeProcess, startWorker, type AgentNodeProcess, type WorkerProcess } from '../../scripts/local-stack.ts'
import { startEventReceiver, type EventReceiver } from '@parley/agent-node/testing/event-receiver'
import { createPostgresTestDatabase, type PostgresTestDatabase } from '@parley/agent-node/testing/temp-databases'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'
import { killProcess } from '../support/killable-agent.ts'
import { startTcpBalancer, type TcpBalancer } from '../support/tcp-balancer.ts'

const INSTANCES = ['node-a', 'node-b'] as const
const BURST = 12
/** Between the rounds of the burst, in milliseconds: the victim has some of its wallet's texts in hand when it dies. */
const BURST_PACE_MS = 40

interface Instance {
  id: string
  publicPort: number
  dataDir: string
  process: AgentNodeProcess
}

/** A wallet, the texts it received and the @ids of the texts it sent. */
interface Chatter {
  wallet: WalletPeer
  connectionId: string
  texts: ReceivedText[]
  sent: Map<string, string>
}

describe('two agent-nodes on one PostgreSQL database, one killed', () => {
  let llm: ScriptedLlm
  let receiver: EventReceiver
  let postgres: PostgresTestDatabase
  let database: Database
  let worker: WorkerProcess
  let balancer: TcpBalancer
  let env: Record<string, string>
  const instances: Instance[] = []
  const chatters: Chatter[] = []

  const admin = (instance: Instance, path: string) => fetch(`${instance.process.adminUrl}${path}`)
  const start = async (instance: Omit<Instance, 'process'>) =>
    startAgentNodeProcess({
      env: {
        ...env,
        INSTANCE_ID: instance.id,
        DATA_DIR: instance.dataDir,
        PUBLIC_PORT: String(instance.publicPort),
        ADMIN_PORT: undefined,
      },
    })
  /** Ids of every agent event in the outbox (internal ones never reach webhooks). */
  const outboxEventIds = async () =>
    (await selectRows<{ id: string }>(database, sql`SELECT id FROM event_outbox WHERE topic NOT LIKE 'internal.%'`)).map((row) => row.id)
  /** DIDComm @ids of the texts that reached an agent. */
  const receivedIds = async () =>
    new Set(
      (await selectRows<{ body: string }>(database, sql`SELECT body FROM event_outbox WHERE topic = 'message-received'`)).map(
        (row) => (JSON.parse(row.body) as { message: { id: string } }).message.id,
      ),
    )
  const webhookIds = () => receiver.events.map((event) => String(event.headers['webhook-id']))
  const leaseHolder = async (name: string) =>
    (await selectRows<{ holder: string }>(database, sql`SELECT holder FROM cluster_leases WHERE name = ${name}`))[0]?.holder
  const echoesOf = (chatter: Chatter, text: string) => chatter.texts.filter((t) => t.content === `echo: ${text}`)

  beforeAll(async () => {
    llm = await startScriptedLlm({ reply: (messages) => `echo: ${messages.at(-1)?.content}` })
    receiver = await startEventReceiver()
    postgres = await createPostgresTestDatabase()
    database = await openDatabase(postgres.url)
    const tunnelSecret = randomBytes(32).toString('base64url')
    worker = await startWorker({
      vars: { TUNNEL_SECRET: tunnelSecret, COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'test-key', COMPAT_MODEL: 'scripted-model' },
    })
    const ports = [await freePort(), await freePort()]
    balancer = await startTcpBalancer(ports)
    env = {
      DATABASE_URL: postgres.url,
      AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
      PUBLIC_API_BASE_URL: `http://localhost:${balancer.port}`,
      AGENT_ENDPOINTS: `ws://127.0.0.1:${balancer.port}`,
      CONTROLLER_TUNNEL_URL: `${worker.url.replace(/^http/, 'ws')}/tunnel`,
      TUNNEL_SECRET: tunnelSecret,
      EVENTS_BASE_URL: receiver.url,
      LEASE_TTL_SECONDS: '3',
      LOG_LEVEL: 'warn',
    }
    // both at once on the empty database: one creates the public DID and runs the start-up
    // recovery, the other waits for it (leases) and finds the DID
    const started = await Promise.all(
      INSTANCES.map(async (id, i) => {
        const instance = { id, publicPort: ports[i]!, dataDir: mkdtempSync(join(tmpdir(), `parley-multi-${id}-`)) }
        return { ...instance, process: await start(instance) }
      }),
    )
    instances.push(...started)
  }, 240_000)

  afterAll(async () => {
    for (const chatter of chatters) await chatter.wallet.stop()
    for (const instance of instances) {
      await instance.process.stop()
      rmSync(instance.dataDir, { recursive: true, force: true })
    }
    await balancer?.close()
    await worker?.stop()
    if (worker) rmSync(worker.persistTo, { recursive: true, force: true })
    await database?.close()
    await postgres?.drop()
    await receiver?.close()
    await llm?.close()
  })

  it('serves one public DID from both instances, each with its own tunnel accepted', async () => {
    const infos = await Promise.all(
      instances.map(async (instance) => (await (await admin(instance, '/v1/agent')).json()) as { publicDid: string }),
    )
    expect(infos[1]!.publicDid).toBe(infos[0]!.publicDid)
    for (const instance of instances) {
      await expect
        .poll(async () => ((await (await admin(instance, '/readyz')).json()) as { checks: { tunnel: { ok: boolean } } }).checks.tunnel.ok, {
          timeout: 30_000,
        })
        .toBe(true)
    }
    // neither replaced the other: both tunnels are still up a while later
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    for (const instance of instances) {
      const ready = (await (await admin(instance, '/readyz')).json()) as { checks: { tunnel: { ok: boolean } } }
      expect(ready.checks.tunnel.ok, instance.id).toBe(true)
    }
  })

  it('chats with messages entering through either instance; the webhook gets every event once', async () => {
    for (const [i, instance] of instances.entries()) {
      balancer.prefer = i // this wallet's sockets go to this instance
      const wallet = await WalletPeer.create({ label: `wallet via ${instance.id}`, logger: createLogger('fatal', 'wallet') })
      const chatter: Chatter = { wallet, connectionId: '', texts: [], sent: new Map() }
      chatters.push(chatter)
      wallet.onText((text) => chatter.texts.push(text))
      const { url } = (await (await admin(instance, '/v1/invitation')).json()) as { url: string }
      chatter.connectionId = await wallet.connect(url)
      await expect.poll(() => chatter.texts.length, { timeout: 30_000 }).toBeGreaterThan(0) // the greeting
    }
    expect(balancer.accepted.every((count) => count > 0)).toBe(true)

    for (let n = 0; n < 3; n++) {
      for (const [i, chatter] of chatters.entries()) {
        const text = `wallet ${i} says ${n}`
        chatter.sent.set(text, await chatter.wallet.sendText(chatter.connectionId, text))
      }
    }
    for (const chatter of chatters)
      for (const text of chatter.sent.keys())
        await expect.poll(() => echoesOf(chatter, text).length, { timeout: 60_000, message: text }).toBe(1)

    // every event of the outbox reached the webhook, none twice
    await expect.poll(async () => (await outboxEventIds()).filter((id) => !webhookIds().includes(id)), { timeout: 30_000 }).toEqual([])
    expect(webhookIds().length).toBe(new Set(webhookIds()).size)
  })

  it('loses nothing and answers each message once when the tunnel lease holder is killed mid-burst', async () => {
    const victimId = await leaseHolder('delivery:tunnel')
    expect(INSTANCES).toContain(victimId)
    const victim = instances.find((instance) => instance.id === victimId)!
    const survivor = instances.find((instance) => instance.id !== victimId)!
    const victimIndex = instances.indexOf(victim)

    const burst: Array<{ chatter: Chatter; text: string }> = []
    let killed: Promise<void> | undefined
    for (let n = 0; n < BURST; n++) {
      for (const [i, chatter] of chatters.entries()) {
        const text = `burst ${i}.${n}`
        burst.push({ chatter, text })
        try {
          chatter.sent.set(text, await chatter.wallet.sendText(chatter.connectionId, text))
        } catch {
          // the wallet's socket to the killed instance is gone: not sent
        }
      }
      if (n === 4) {
        balancer.prefer = instances.indexOf(survivor)
        killed = killProcess(victim.process)
      }
      await new Promise((resolve) => setTimeout(resolve, BURST_PACE_MS))
    }
    await killed

    // the wallet on the survivor lost nothing: each of its texts reached it
    const survivorChatter = chatters[instances.indexOf(survivor)]!
    const notReached = async () => {
      const reached = await receivedIds()
      return burst
        .filter(({ chatter, text }) => chatter === survivorChatter && !reached.has(chatter.sent.get(text) ?? ''))
        .map((e) => e.text)
    }
    await expect.poll(notReached, { timeout: 60_000, interval: 500 }).toEqual([])
    // what the killed instance had stored and not finished is adopted by the survivor once its
    // instance lease expired: the inbox empties
    const inboxRows = async () => (await selectRows(database, sql`SELECT id FROM didcomm_inbox`)).length
    await expect.poll(inboxRows, { timeout: 60_000, interval: 500 }).toBe(0)
    // every text that reached an agent is answered exactly once
    const notAnsweredOnce = async () => {
      const reached = await receivedIds()
      return burst
        .filter(({ chatter, text }) => reached.has(chatter.sent.get(text) ?? '') && echoesOf(chatter, text).length !== 1)
        .map(({ chatter, text }) => `${text}: ${echoesOf(chatter, text).length} answers`)
    }
    await expect.poll(notAnsweredOnce, { timeout: 120_000, interval: 500 }).toEqual([])
    // the killed instance's wallet reconnects through the survivor and chats on
    const victimChatter = chatters[victimIndex]!
    const after = await victimChatter.wallet.sendText(victimChatter.connectionId, 'after the kill')
    victimChatter.sent.set('after the kill', after)
    await expect.poll(() => echoesOf(victimChatter, 'after the kill').length, { timeout: 60_000 }).toBe(1)
    // a few seconds more: a late duplicate would show up now
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    for (const chatter of chatters)
      for (const text of chatter.sent.keys()) expect(echoesOf(chatter, text).length, text).toBeLessThanOrEqual(1)
    expect(await notAnsweredOnce()).toEqual([])

    // no event lost: every event of the outbox reached the webhook (one in flight at the kill may come twice)
    await expect.poll(async () => (await outboxEventIds()).filter((id) => !webhookIds().includes(id)), { timeout: 60_000 }).toEqual([])
    // the survivor took the lanes over
    expect(await leaseHolder('delivery:tunnel')).toBe(survivor.id)
    expect(await leaseHolder('delivery:webhook:events-base-url')).toBe(survivor.id)
  }, 300_000)
})
