/**
 * Benchmark: `GET /v1/connections` on an agent-node with many connections (issue 16, "Start-up
 * and size"), and what the rest of the agent sees meanwhile.
 *
 * An in-process agent-node on SQLite (a WAL file in a temp folder) holds `BENCH_CONNECTIONS`
 * (default 10,000) completed connections, real Credo `DidCommConnectionRecord`s saved through its
 * repository (sealed at rest as every record). Then `BENCH_ROUNDS` (default 5) times: one
 * `GET /v1/connections` while a poller sends `GET /v1/agent` one after another, as a monitoring
 * probe or another controller would. Printed: the list's wall time and body size, the poller's
 * answers during the list (p50, p99, the slowest) and the event loop's longest delay
 * (`monitorEventLoopDelay`, 1 ms resolution) during the list. Then the same connections in pages
 * of `BENCH_PAGE` (default 100, `?limit=`), walked from the first to the last through the `Link`
 * headers, `BENCH_ROUNDS` times: each page's wall time and the whole walk's.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { startAgentNode } from '../agent-node/src/app.ts'
import { loadConfig } from '../agent-node/src/config/index.ts'
import { createLogger } from '../agent-node/src/logging/index.ts'
import { freePort } from '../scripts/local-stack.ts'
import { seedConnections } from '../agent-node/test/support/connection-records.ts'
import { ms, summarize } from './stats.ts'

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const PAGE = Number(process.env.BENCH_PAGE ?? 100)
/** Records saved at once while seeding. */
const SEED_PARALLEL = 50

/** One list, and the poller's answers (ms) while it ran. */
interface ListRound {
  listMs: number
  bodyBytes: number
  count: number
  probeMs: number[]
  loopDelayMaxMs: number
}

async function listOnce(adminUrl: string): Promise<ListRound> {
  const probeMs: number[] = []
  let listing = true
  const poll = async () => {
    while (listing) {
      const start = performance.now()
      await (await fetch(`${adminUrl}/v1/agent`)).arrayBuffer()
      if (listing) probeMs.push(performance.now() - start)
    }
  }
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  const poller = poll()
  const start = performance.now()
  const response = await fetch(`${adminUrl}/v1/connections`)
  const body = await response.text()
  const listMs = performance.now() - start
  listing = false
  delay.disable()
  await poller
  if (response.status !== 200) throw new Error(`GET /v1/connections answered ${response.status}: ${body.slice(0, 200)}`)
  return { listMs, bodyBytes: body.length, count: (JSON.parse(body) as unknown[]).length, probeMs, loopDelayMaxMs: delay.max / 1e6 }
}

/** Walks `GET /v1/connections?limit=PAGE` from the first page to the last; each page's wall time (ms) and the connections seen. */
async function walkPages(adminUrl: string): Promise<{ pageMs: number[]; count: number }> {
  const pageMs: number[] = []
  let count = 0
  let next: string | undefined = `/v1/connections?limit=${PAGE}`
  while (next) {
    const start = performance.now()
    const response = await fetch(`${adminUrl}${next}`)
    const body = await response.text()
    pageMs.push(performance.now() - start)
    if (response.status !== 200) throw new Error(`GET ${next} answered ${response.status}: ${body.slice(0, 200)}`)
    count += (JSON.parse(body) as unknown[]).length
    next = response.headers.get('link')?.match(/^<([^>]+)>; rel="next"$/)?.[1]
  }
  return { pageMs, count }
}

/** Prints the figures of `GET /v1/connections` over `CONNECTIONS` connections, whole and in pages. */
export async function runConnectionList(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'))
  const node = await startAgentNode(
    loadConfig({
      DATA_DIR: dataDir,
      AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
      PUBLIC_PORT: String(await freePort()),
      ADMIN_PORT: String(await freePort()),
      LOG_LEVEL: 'error',
    }).config,
    createLogger('error', 'bench'),
  )
  try {
    const started = performance.now()
    await seedConnections(node.agent, CONNECTIONS, SEED_PARALLEL)
    console.log(`  ${CONNECTIONS} connections stored in ${((performance.now() - started) / 1000).toFixed(1)} s; ${ROUNDS} lists`)
    const adminUrl = `http://127.0.0.1:${node.adminPort}`
    await listOnce(adminUrl)
    const rounds: ListRound[] = []
    for (let round = 0; round < ROUNDS; round++) rounds.push(await listOnce(adminUrl))
    await walkPages(adminUrl)
    const walks: { walkMs: number; pageMs: number[]; count: number }[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now()
      const walk = await walkPages(adminUrl)
      walks.push({ ...walk, walkMs: performance.now() - start })
    }
    const probes = rounds.flatMap((round) => round.probeMs)
    const figures = (samples: number[]) => {
      const { p50, p99 } = summarize(samples)
      return { p50: ms(p50), p99: ms(p99), slowest: ms(Math.max(...samples)) }
    }
    console.table({
      [`GET /v1/connections (${rounds[0]!.count} connections, ${(rounds[0]!.bodyBytes / 1e6).toFixed(2)} MB)`]: figures(
        rounds.map((round) => round.listMs),
      ),
      [`GET /v1/agent meanwhile (${probes.length} answers)`]: figures(probes),
      'event-loop delay during a list, longest': figures(rounds.map((round) => round.loopDelayMaxMs)),
      [`a page of ${PAGE} (?limit=${PAGE}, ${walks[0]!.pageMs.length} pages a walk)`]: figures(walks.flatMap((walk) => walk.pageMs)),
      [`the first page of ${PAGE}`]: figures(walks.map((walk) => walk.pageMs[0]!)),
      [`every page, first to last (${walks[0]!.count} connections)`]: figures(walks.map((walk) => walk.walkMs)),
    })
  } finally {
    await node.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
