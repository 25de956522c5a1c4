/**
 * Benchmark: where a sequential chat turn's time goes. One plain Credo wallet sends texts one at
 * a time, first on the full path (agent-node, the tunnel, the conversation Durable Object in
 * workerd, the scripted model answering at once) and then on agent-node's raw Credo echo, as in
 * `chat-round-trip`; each turn's moments are marked in this process:
 * - every WebSocket frame the wallet, agent-node (towards the wallet) and the tunnel send or
 *   receive, the tunnel's by frame kind (`event`, `ack`, `command`, `command-result`);
 * - the scripted model's request;
 * - each outbox append (`OutboxStore.append`) and each disk sync of the WAL (`WalFile.sync`, the
 *   `fdatasync` on libuv's thread pool), started and done.
 * It prints the median of each moment in ms after the wallet starts sending, in the order they
 * happen (a moment that comes twice in a turn is named `#2`), with the number of turns it came
 * in, and the CPU per turn of this process and of the worker's processes (workerd, read from
 * Linux `/proc`). The marks wrap those functions for the run only and are removed after it.
 * `BENCH_MESSAGES` turns per path (default 200) after 30 of warm-up.
 */
import { startScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'
import WebSocket from 'ws'
import { WalFile } from '../agent-node/src/database/disk-sync.ts'
import { OutboxStore } from '../agent-node/src/events/outbox/store.ts'
import { connectPlainWallets, type PlainAgent, type PlainWallet } from './plain-credo.ts'
import { treeCpuOf } from './processes.ts'
import { startBenchStack, switchToRawEcho } from './stack.ts'
import { percentile } from './stats.ts'

const TURNS = Number(process.env.BENCH_MESSAGES ?? 200)
const WARMUP = 30
/** A pause between turns, ms, so one turn's late work (receipts, delivery states) ends before the next starts. */
const PAUSE_MS = 5

/** One moment's median over the turns it came in. */
export interface Moment {
  name: string
  /** ms after the wallet started sending */
  medianMs: number
  turns: number
}

/** One path's moments in time order, and the CPU per turn of this process and of the worker's processes, ms. */
export interface PathTimeline {
  moments: Moment[]
  cpuMs: number
  workerCpuMs: number
}

/** The marks of the turn under way: moment name -> `performance.now()`. */
class Marks {
  private turn?: Map<string, number>
  private readonly turns: Map<string, number>[] = []

  /** Marks `name` now, in the turn under way (none: ignored); a repeated name gets `#2`, `#3`… */
  mark(name: string): void {
    if (!this.turn) return
    let key = name
    for (let n = 2; this.turn.has(key); n++) key = `${name}#${n}`
    this.turn.set(key, performance.now())
  }

  /** Runs one turn, its moments measured from its start. */
  async measure(turn: () => Promise<void>): Promise<void> {
    const start = performance.now()
    this.turn = new Map()
    try {
      await turn()
      this.mark('the wallet has the answer')
      this.turns.push(new Map([...this.turn].map(([name, at]) => [name, at - start])))
    } finally {
      this.turn = undefined
    }
  }

  /** Each moment's median over the turns it came in, in time order. */
  moments(): Moment[] {
    const byName = new Map<string, number[]>()
    for (const turn of this.turns) for (const [name, at] of turn) byName.set(name, [...(byName.get(name) ?? []), at])
    return [...byName]
      .map(([name, samples]) => ({ name, turns: samples.length, medianMs: percentile(samples, 50) }))
      .sort((a, b) => a.medianMs - b.medianMs)
  }
}

/** Who a `ws` socket of this process belongs to: the tunnel (its URL ends in /tunnel), the wallet (another URL), or agent-node (accepted, no URL). */
function socketOwner(socket: WebSocket): string {
  if (!socket.url) return 'agent-node'
  return socket.url.endsWith('/tunnel') ? 'tunnel' : 'wallet'
}

/** The `kind` of a tunnel frame's JSON text, read without parsing it. */
function frameKind(data: unknown): string {
  return /^\{"kind":"([a-z-]+)"/.exec(String(data))?.[1] ?? 'frame'
}

/**
 * Wraps the functions whose calls are marked (module comment) so that they mark `marks`;
 * @returns what removes the wrappers.
 */
function instrument(marks: Marks): () => void {
  const restore: (() => void)[] = []
  const wrap = <T extends object, K extends keyof T>(target: T, key: K, wrapper: (original: T[K]) => T[K]) => {
    const original = target[key]
    target[key] = wrapper(original)
    restore.push(() => {
      target[key] = original
    })
  }
  const marked = (name: string, promise: Promise<unknown>) => {
    marks.mark(`${name} started`)
    promise.then(
      () => marks.mark(`${name} done`),
      () => undefined,
    )
  }
  wrap(
    WebSocket.prototype,
    'send',
    (send) =>
      function (this: WebSocket, data: unknown, ...rest: unknown[]) {
        const owner = socketOwner(this)
        marks.mark(owner === 'tunnel' ? `tunnel sends ${frameKind(data)}` : `${owner} sends`)
        return (send as (...args: unknown[]) => void).call(this, data, ...rest)
      } as WebSocket['send'],
  )
  wrap(
    WebSocket.prototype,
    'emit',
    (emit) =>
      function (this: WebSocket, event: string | symbol, ...args: unknown[]) {
        if (event === 'message') {
          const owner = socketOwner(this)
          marks.mark(owner === 'tunnel' ? `tunnel receives ${frameKind(args[0])}` : `${owner} receives`)
        }
        return emit.call(this, event, ...args)
      } as WebSocket['emit'],
  )
  wrap(
    OutboxStore.prototype,
    'append',
    (append) =>
      function (this: OutboxStore, ...args: Parameters<OutboxStore['append']>) {
        const appended = append.apply(this, args)
        marked('outbox append', appended)
        return appended
      },
  )
  wrap(
    WalFile.prototype,
    'sync',
    (sync) =>
      function (this: WalFile) {
        const synced = sync.apply(this)
        marked('disk sync', synced)
        return synced
      },
  )
  return () => {
    for (const undo of restore.reverse()) undo()
  }
}

/** Measures `TURNS` sequential turns of `wallet` on `marks` after the warm-up; `workerPid`'s process tree is the worker. */
async function timeline(wallet: PlainWallet, label: string, workerPid: number, marks: Marks): Promise<PathTimeline> {
  for (let i = 0; i < WARMUP; i++) await wallet.roundTrip(`${label} warm-up ${i}`)
  const removeMarks = instrument(marks)
  try {
    const cpu = process.cpuUsage()
    const workerCpu = treeCpuOf(workerPid)
    for (let i = 0; i < TURNS; i++) {
      await marks.measure(() => wallet.roundTrip(`${label} ${i}`))
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
    }
    const used = process.cpuUsage(cpu)
    return {
      moments: marks.moments(),
      cpuMs: (used.user + used.system) / 1000 / TURNS,
      workerCpuMs: (treeCpuOf(workerPid) - workerCpu) / TURNS,
    }
  } finally {
    removeMarks()
  }
}

/** The full path's timeline, then the raw echo's, with one plain wallet. */
export async function chatTimeline(): Promise<{ full: PathTimeline; raw: PathTimeline }> {
  /** The marks of the path under way, which the scripted model marks too. */
  let marks = new Marks()
  const llm = await startScriptedLlm({
    reply: (messages) => {
      marks.mark('the model is asked')
      return `echo: ${messages.at(-1)?.content}`
    },
  })
  const agents: PlainAgent[] = []
  const stack = await startBenchStack({ COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'bench', AGENT_MEMORY_WINDOW: '8' })
  try {
    const invitationUrl = async () =>
      ((await (await fetch(`http://127.0.0.1:${stack.node.adminPort}/v1/invitation`)).json()) as { url: string }).url
    const [wallet] = await connectPlainWallets(1, agents, invitationUrl, { greeted: true })
    const workerPid = stack.worker.child.pid!
    const full = await timeline(wallet!, 'full', workerPid, marks)
    await switchToRawEcho(stack.node)
    marks = new Marks()
    const raw = await timeline(wallet!, 'raw', workerPid, marks)
    return { full, raw }
  } finally {
    for (const agent of agents) await agent.shutdown().catch(() => undefined)
    await stack.stop()
    await llm.close()
  }
}

/** Prints the figures of `chatTimeline`. */
export async function runChatTimeline(): Promise<void> {
  console.log(`chat timeline: ${TURNS} sequential turns per path after ${WARMUP} of warm-up, one plain Credo wallet`)
  const { full, raw } = await chatTimeline()
  for (const [name, path] of [
    ['full: wallet -> agent -> tunnel -> DO -> LLM -> wallet', full],
    ['raw Credo echo of agent-node', raw],
  ] as const) {
    console.log(`${name}: cpu per turn ${path.cpuMs.toFixed(2)} ms here, ${path.workerCpuMs.toFixed(2)} ms in the worker's processes`)
    for (const moment of path.moments) console.log(`  ${moment.medianMs.toFixed(2).padStart(7)} ms  ${moment.name} (${moment.turns} turns)`)
  }
}
