/**
 * Benchmark: one chat turn, wallet -> agent-node -> tunnel -> conversation Durable Object (in
 * workerd) -> LLM (scripted, answers at once) -> agent-node -> wallet ("full"), against the raw
 * Credo basic-message echo of agent-node (agent-node answers directly, no tunnel: "raw") and the
 * anchor, the same echo between two plain Credo 0.6.3 agents ("plain", `plain-credo.ts`).
 * Sequential (one message in flight, after a warm-up) and concurrent (`BENCH_WALLETS` wallets at
 * once, each waiting for its reply), all in one run; CPU time of this process per round trip
 * (workerd is another process). The wallets are plain Credo agents on every path
 * (`BENCH_WALLET=plain`, the default), so the ratios compare the echoing agents alone;
 * `BENCH_WALLET=peer` uses Parley's `WalletPeer` (its SQLite wallet, all its protocols) towards
 * agent-node instead, as the figures before 2026-11-25 did.
 */
import { startScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'
import { CONNECTING_AT_ONCE, connectPlainWallets, startPlainCredoEcho, type PlainAgent, type PlainWallet } from './plain-credo.ts'
import { startBenchStack, type BenchStack } from './stack.ts'
import { WalletPeer } from '../agent-node/src/wallet-peer/WalletPeer.ts'
import { createLogger } from '../agent-node/src/logging/index.ts'
import { DidCommBasicMessageEventTypes, DidCommBasicMessageRole, type DidCommBasicMessageStateChangedEvent } from '@credo-ts/didcomm'
import { inBatches, ms, summarize, type LatencySummary } from './stats.ts'

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 500)
const WALLETS = Number(process.env.BENCH_WALLETS ?? 50)
const PER_WALLET = Number(process.env.BENCH_PER_WALLET ?? 10)
const WALLET_KIND = process.env.BENCH_WALLET ?? 'plain'
const WARMUP = 20

/** One path's figures: latency, round trips per second and this process's CPU ms per round trip. */
export interface PathFigures extends LatencySummary {
  perSecond: number
  cpuMs: number
}

async function timed(run: () => Promise<number[]>): Promise<PathFigures> {
  const cpu = process.cpuUsage()
  const start = performance.now()
  const samples = await run()
  const elapsed = performance.now() - start
  const used = process.cpuUsage(cpu)
  return { ...summarize(samples), perSecond: (samples.length * 1000) / elapsed, cpuMs: (used.user + used.system) / 1000 / samples.length }
}

async function sequential(wallet: PlainWallet, label: string, count: number): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await wallet.roundTrip(`${label} ${i}`)
    samples.push(performance.now() - start)
  }
  return samples
}

async function concurrent(wallets: PlainWallet[], label: string): Promise<number[]> {
  const all = await Promise.all(wallets.map((wallet, w) => sequential(wallet, `${label} ${w}`, PER_WALLET)))
  return all.flat()
}

/** `WalletPeer` seen as a `PlainWallet` on its connection to agent-node. */
function peerRoundTrips(wallet: WalletPeer, connectionId: string): PlainWallet {
  return {
    roundTrip: async (text) => {
      const content = `${text} ${Math.random().toString(36).slice(2, 10)}`
      const reply = wallet.nextText((m) => m.content.endsWith(content), 60_000)
      await wallet.sendText(connectionId, content)
      await reply
    },
  }
}

/** The stack's wallet and `WALLETS - 1` more `WalletPeer`s (pushed to `peers`) connected to agent-node. */
async function peerWallets(stack: BenchStack, peers: WalletPeer[], invitationUrl: () => Promise<string>): Promise<PlainWallet[]> {
  const logger = createLogger('error', 'bench')
  const others = await inBatches(WALLETS - 1, CONNECTING_AT_ONCE, async (i) => {
    const peer = await WalletPeer.create({ label: `bench wallet ${i + 1}`, logger })
    peers.push(peer)
    const greeting = peer.nextText(() => true, 60_000)
    const id = await peer.connect(await invitationUrl(), 60_000)
    await greeting
    return peerRoundTrips(peer, id)
  })
  return [peerRoundTrips(stack.wallet, stack.connectionId), ...others]
}

export interface ChatRoundTripFigures {
  sequential: { plain: PathFigures; raw: PathFigures; full: PathFigures }
  concurrent: { plain: PathFigures; raw: PathFigures; full: PathFigures }
}

export async function chatRoundTrip(): Promise<ChatRoundTripFigures> {
  const plainEcho = await startPlainCredoEcho(WALLETS)
  let plainSequential: PathFigures
  let plainConcurrent: PathFigures
  try {
    await sequential(plainEcho.wallets[0]!, 'warm-up', WARMUP)
    plainSequential = await timed(() => sequential(plainEcho.wallets[0]!, 'plain', MESSAGES))
    plainConcurrent = await timed(() => concurrent(plainEcho.wallets, 'plain'))
  } finally {
    await plainEcho.stop()
  }

  const llm = await startScriptedLlm({ reply: (messages) => `echo: ${messages.at(-1)?.content}` })
  const stack = await startBenchStack({ COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'bench', AGENT_MEMORY_WINDOW: '8' })
  const { node } = stack
  const peers: WalletPeer[] = []
  const plainWallets: PlainAgent[] = []
  const invitationUrl = async () =>
    ((await (await fetch(`http://127.0.0.1:${node.adminPort}/v1/invitation`)).json()) as { url: string }).url
  try {
    const all =
      WALLET_KIND === 'peer'
        ? await peerWallets(stack, peers, invitationUrl)
        : await connectPlainWallets(WALLETS, plainWallets, invitationUrl, { greeted: true })
    const first = all[0]!

    // Full path through the tunnel and the Durable Object.
    await sequential(first, 'warm-up', WARMUP)
    const fullSequential = await timed(() => sequential(first, 'full', MESSAGES))
    const fullConcurrent = await timed(() => concurrent(all, 'full'))

    // Raw Credo echo: the tunnel is closed and no longer a subscriber (its events would only be
    // retried), agent-node itself answers each basic message.
    await node.tunnel?.stop()
    if (node.tunnel) await node.delivery.removeSubscriber(node.tunnel.name)
    const basicMessages = node.agent.modules.didcomm.basicMessages
    node.agent.events.on<DidCommBasicMessageStateChangedEvent>(
      DidCommBasicMessageEventTypes.DidCommBasicMessageStateChanged,
      ({ payload }) => {
        if (payload.basicMessageRecord.role !== DidCommBasicMessageRole.Receiver) return
        void basicMessages.sendMessage(payload.basicMessageRecord.connectionId, `echo: ${payload.message.content}`)
      },
    )
    await sequential(first, 'warm-up raw', WARMUP)
    const rawSequential = await timed(() => sequential(first, 'raw', MESSAGES))
    const rawConcurrent = await timed(() => concurrent(all, 'raw'))
    return {
      sequential: { plain: plainSequential, raw: rawSequential, full: fullSequential },
      concurrent: { plain: plainConcurrent, raw: rawConcurrent, full: fullConcurrent },
    }
  } finally {
    for (const peer of peers) await peer.stop()
    for (const agent of plainWallets) await agent.shutdown().catch(() => undefined)
    await stack.stop()
    await llm.close()
  }
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`

/** Prints the figures of `chatRoundTrip`. */
export async function runChatRoundTrip(): Promise<void> {
  console.log(
    `chat round trip: ${MESSAGES} messages one in flight (after ${WARMUP} warm-up); ${WALLETS} wallets x ${PER_WALLET} at once; wallets towards agent-node: ${WALLET_KIND === 'peer' ? 'WalletPeer' : 'plain Credo'}`,
  )
  const figures = await chatRoundTrip()
  for (const [mode, paths] of Object.entries(figures)) {
    const row = (f: PathFigures) => ({
      p50: ms(f.p50),
      p99: ms(f.p99),
      'round trips/s': f.perSecond.toFixed(1),
      'cpu/round trip': ms(f.cpuMs),
      n: f.n,
    })
    console.log(mode)
    console.table({
      'plain Credo echo (anchor)': row(paths.plain),
      'agent-node raw Credo echo': row(paths.raw),
      'full: wallet -> agent -> tunnel -> DO -> LLM -> wallet': row(paths.full),
    })
    const { plain, raw, full } = paths
    console.log(
      `${mode} raw/plain: p50 ${ratio(raw.p50, plain.p50)}, p99 ${ratio(raw.p99, plain.p99)}, throughput ${ratio(raw.perSecond, plain.perSecond)}, cpu ${ratio(raw.cpuMs, plain.cpuMs)}`,
    )
    console.log(
      `${mode} full/plain: p50 ${ratio(full.p50, plain.p50)}, p99 ${ratio(full.p99, plain.p99)}, throughput ${ratio(full.perSecond, plain.perSecond)}, cpu ${ratio(full.cpuMs, plain.cpuMs)}`,
    )
  }
}
