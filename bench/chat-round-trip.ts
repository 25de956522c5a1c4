/**
 * Benchmark: one chat turn, wallet -> agent-node -> tunnel -> conversation Durable Object (in
 * workerd) -> LLM (scripted, answers at once) -> agent-node -> wallet ("full"), against the raw
 * Credo basic-message echo of agent-node (agent-node answers directly, no tunnel: "raw") and the
 * anchor, the same echo between two plain Credo 0.6.3 agents ("plain", `plain-credo.ts`).
 * Sequential (one message in flight, after a warm-up) and concurrent (`BENCH_WALLETS` wallets at
 * once, each waiting for its reply), all in one run; CPU time of this process per round trip
 * (workerd is another process, and so is the scripted model: `scripted-llm-process.ts`). Each of agent-node's paths is measured in stretches alternating
 * with stretches of the anchor (which stays up throughout), and compared with the anchor's
 * stretches beside it, so a change in the machine's load falls on both sides of a ratio: the
 * sequential messages in `BENCH_SEQUENTIAL_ROUNDS` stretches (short ones, as the machine's speed
 * changes within seconds), the concurrent phase in `BENCH_ROUNDS`. The wallets are plain Credo
 * agents on every path (`BENCH_WALLET=plain`, the default), so the ratios compare the echoing
 * agents alone; `BENCH_WALLET=peer` uses Parley's `WalletPeer` (its SQLite wallet, all its
 * protocols) towards agent-node instead, as the figures before 2026-11-25 did.
 */
import pTimeout from 'p-timeout'
import { CONNECTING_AT_ONCE, connectPlainWallets, startPlainCredoEcho, type PlainAgent, type PlainWallet } from './plain-credo.ts'
import { startScriptedLlmProcess } from './scripted-llm-process.ts'
import { startBenchStack, switchToRawEcho, type BenchStack } from './stack.ts'
import { WalletPeer } from '../agent-node/src/wallet-peer/WalletPeer.ts'
import { createLogger } from '../agent-node/src/logging/index.ts'
import { inBatches, ms, summarize, type LatencySummary } from './stats.ts'

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 500)
const WALLETS = Number(process.env.BENCH_WALLETS ?? 50)
const PER_WALLET = Number(process.env.BENCH_PER_WALLET ?? 10)
const WALLET_KIND = process.env.BENCH_WALLET ?? 'plain'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SEQUENTIAL_ROUNDS = Number(process.env.BENCH_SEQUENTIAL_ROUNDS ?? 10)
const WARMUP = 20

/** When `chatRoundTrip` started (`performance.now()`), for the progress lines. */
let started = performance.now()

/**
 * Prints a progress line, seconds since `chatRoundTrip` started first: a run takes minutes, and
 * a run that stops making progress shows where.
 */
function progress(step: string): void {
  console.log(`  ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  ${step}`)
}

/** One path's figures: latency, round trips per second and this process's CPU ms per round trip. */
export interface PathFigures extends LatencySummary {
  perSecond: number
  cpuMs: number
}

/** Latency samples, wall time and this process's CPU time, summed over the stretches measured. */
class Meter {
  private readonly samples: number[] = []
  private elapsedMs = 0
  private cpuMs = 0

  async measure(run: () => Promise<number[]>): Promise<void> {
    const cpu = process.cpuUsage()
    const start = performance.now()
    this.samples.push(...(await run()))
    this.elapsedMs += performance.now() - start
    const used = process.cpuUsage(cpu)
    this.cpuMs += (used.user + used.system) / 1000
  }

  figures(): PathFigures {
    const n = this.samples.length
    return { ...summarize(this.samples), perSecond: (n * 1000) / this.elapsedMs, cpuMs: this.cpuMs / n }
  }
}

/**
 * Measures `path` (called `name` in the progress lines) and the `anchor` in `rounds` alternating
 * stretches (the anchor first in even rounds, the path first in odd ones); `run(round)` is one
 * stretch of either.
 */
async function alternated(
  name: string,
  rounds: number,
  anchor: (round: number) => Promise<number[]>,
  path: (round: number) => Promise<number[]>,
): Promise<PairedFigures> {
  const anchorMeter = new Meter()
  const pathMeter = new Meter()
  for (let round = 0; round < rounds; round++) {
    progress(`${name}: round ${round + 1} of ${rounds}, with the anchor's`)
    const stretches = [() => anchorMeter.measure(() => anchor(round)), () => pathMeter.measure(() => path(round))]
    if (round % 2 === 1) stretches.reverse()
    for (const stretch of stretches) await stretch()
  }
  return { anchor: anchorMeter.figures(), path: pathMeter.figures() }
}

/** Messages in sequential round `round`: `MESSAGES` split over the rounds. */
const messagesInRound = (round: number) =>
  Math.floor(((round + 1) * MESSAGES) / SEQUENTIAL_ROUNDS) - Math.floor((round * MESSAGES) / SEQUENTIAL_ROUNDS)

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

/** A path's figures beside those of the anchor's stretches alternated with it. */
export interface PairedFigures {
  anchor: PathFigures
  path: PathFigures
}

export interface ChatRoundTripFigures {
  sequential: { raw: PairedFigures; full: PairedFigures }
  concurrent: { raw: PairedFigures; full: PairedFigures }
}

export async function chatRoundTrip(): Promise<ChatRoundTripFigures> {
  started = performance.now()
  progress(`anchor: starting, ${WALLETS} plain wallets connecting`)
  const plainEcho = await startPlainCredoEcho(WALLETS)
  const llm = await startScriptedLlmProcess()
  let stack: BenchStack | undefined
  const peers: WalletPeer[] = []
  const plainWallets: PlainAgent[] = []
  try {
    const anchorFirst = plainEcho.wallets[0]!
    await sequential(anchorFirst, 'warm-up', WARMUP)
    const anchorSequential = (round: number) => sequential(anchorFirst, `plain ${round}`, messagesInRound(round))
    const anchorConcurrent = (round: number) => concurrent(plainEcho.wallets, `plain ${round}`)

    progress(`agent-node and the worker: starting, ${WALLETS} wallets connecting`)
    stack = await startBenchStack({ COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'bench', AGENT_MEMORY_WINDOW: '8' })
    const { node } = stack
    const invitationUrl = async () =>
      ((await (await fetch(`http://127.0.0.1:${node.adminPort}/v1/invitation`)).json()) as { url: string }).url
    const all =
      WALLET_KIND === 'peer'
        ? await peerWallets(stack, peers, invitationUrl)
        : await connectPlainWallets(WALLETS, plainWallets, invitationUrl, { greeted: true })
    const first = all[0]!

    // Full path through the tunnel and the Durable Object.
    await sequential(first, 'warm-up', WARMUP)
    const fullSequential = await alternated('full path, one in flight', SEQUENTIAL_ROUNDS, anchorSequential, (round) =>
      sequential(first, `full ${round}`, messagesInRound(round)),
    )
    const fullConcurrent = await alternated(`full path, ${WALLETS} wallets`, ROUNDS, anchorConcurrent, (round) =>
      concurrent(all, `full ${round}`),
    )

    await switchToRawEcho(node)
    await sequential(first, 'warm-up raw', WARMUP)
    const rawSequential = await alternated('raw echo, one in flight', SEQUENTIAL_ROUNDS, anchorSequential, (round) =>
      sequential(first, `raw ${round}`, messagesInRound(round)),
    )
    const rawConcurrent = await alternated(`raw echo, ${WALLETS} wallets`, ROUNDS, anchorConcurrent, (round) =>
      concurrent(all, `raw ${round}`),
    )
    return {
      sequential: { raw: rawSequential, full: fullSequential },
      concurrent: { raw: rawConcurrent, full: fullConcurrent },
    }
  } finally {
    progress('stopping')
    for (const peer of peers) await stopWithin('a wallet peer', peer.stop())
    for (const agent of plainWallets)
      await stopWithin(
        'a plain wallet',
        agent.shutdown().catch(() => undefined),
      )
    if (stack) await stopWithin('agent-node and the worker', stack.stop())
    await stopWithin('the scripted LLM', llm.stop())
    await stopWithin('the anchor', plainEcho.stop())
  }
}

/** How long the bench waits for one part to stop before it goes on without it, ms. */
const STOP_TIMEOUT_MS = 30_000

/**
 * Waits for `stopped` (a part named `name` stopping) at most `STOP_TIMEOUT_MS`, then says so in a
 * progress line and goes on: a part that does not stop must not keep the figures from printing
 * (the process exits once they are). Its rejection still propagates.
 */
async function stopWithin(name: string, stopped: Promise<unknown>): Promise<void> {
  const done = await pTimeout(
    stopped.then(() => true),
    { milliseconds: STOP_TIMEOUT_MS, message: false },
  )
  if (!done) progress(`${name} did not stop within ${STOP_TIMEOUT_MS / 1000} s; left to the process exit`)
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`

/** Prints the figures of `chatRoundTrip`. */
export async function runChatRoundTrip(): Promise<void> {
  console.log(
    `chat round trip: ${MESSAGES} messages one in flight (after ${WARMUP} warm-up) in ${SEQUENTIAL_ROUNDS} stretches; ` +
      `${WALLETS} wallets x ${PER_WALLET} at once, ${ROUNDS} times; each stretch alternating with one of the anchor's; ` +
      `wallets towards agent-node: ${WALLET_KIND === 'peer' ? 'WalletPeer' : 'plain Credo'}`,
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
      'plain Credo echo (anchor), beside raw': row(paths.raw.anchor),
      'agent-node raw Credo echo': row(paths.raw.path),
      'plain Credo echo (anchor), beside full': row(paths.full.anchor),
      'full: wallet -> agent -> tunnel -> DO -> LLM -> wallet': row(paths.full.path),
    })
    for (const [name, { anchor, path }] of Object.entries(paths) as [string, PairedFigures][]) {
      console.log(
        `${mode} ${name}/plain: p50 ${ratio(path.p50, anchor.p50)}, p99 ${ratio(path.p99, anchor.p99)}, throughput ${ratio(path.perSecond, anchor.perSecond)}, cpu ${ratio(path.cpuMs, anchor.cpuMs)}`,
      )
    }
  }
}
