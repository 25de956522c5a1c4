/**
 * Data at rest: a real agent-node creates a credential definition, and none of its private parts
 * (credential-definition private key, key-correctness proof) can be read from the raw database
 * (SQLite: the bytes of its files; PostgreSQL: the rows); the SQLite files and the data folder are
 * private to the agent's user; a second agent-node on the same data folder is refused before it
 * opens the database.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { AnonCredsCredentialDefinitionPrivateRepository, AnonCredsKeyCorrectnessProofRepository } from '@credo-ts/anoncreds'
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { startAgentNode } from '../../src/app.ts'
import { DataDirLockedError, LOCK_FILE } from '../../src/data-dir/index.ts'
import { selectRows } from '../../src/database/dialect.ts'
import { openDatabase } from '../../src/database/index.ts'
import { createLogger } from '../../src/logging/index.ts'
import { useTestAgentNode } from '../support/agent-node.ts'
import { dialects } from '../support/temp-databases.ts'

/** Every decimal number of 40 digits or more in `value`'s JSON: the big integers of AnonCreds keys. */
function bigNumbers(value: unknown): string[] {
  return [...JSON.stringify(value).matchAll(/\d{40,}/g)].map((match) => match[0])
}

describe.each(dialects)('private key material at rest on %s', (dialect) => {
  const stack = useTestAgentNode(dialect)

  it('stores no AnonCreds private value in clear', async () => {
    const { agent } = stack
    const created = await agent.admin('/v1/credential-types', { body: { name: 'Membership', version: '1.0', attributes: ['name'] } })
    expect(created.status).toBe(201)
    const { id: credentialDefinitionId } = (await created.json()) as { id: string }

    const context = agent.node.agent.context
    const privateRecord = await context.dependencyManager
      .resolve(AnonCredsCredentialDefinitionPrivateRepository)
      .getByCredentialDefinitionId(context, credentialDefinitionId)
    const proofRecord = await context.dependencyManager
      .resolve(AnonCredsKeyCorrectnessProofRepository)
      .getByCredentialDefinitionId(context, credentialDefinitionId)
    const secrets = [...bigNumbers(privateRecord.value), ...bigNumbers(proofRecord.value)]
    expect(secrets.length).toBeGreaterThan(5)

    let raw: string
    if (dialect === 'sqlite') {
      const dataDir = agent.config.dataDir
      raw = readdirSync(dataDir)
        .filter((name) => name.startsWith('agent.sqlite'))
        .map((name) => readFileSync(join(dataDir, name)).toString('latin1'))
        .join('\n')
    } else {
      const database = await openDatabase(agent.config.databaseUrl!)
      try {
        const rows = await selectRows<{ value: string }>(database, sql`SELECT value FROM credo_records`)
        raw = rows.map((row) => row.value).join('\n')
      } finally {
        await database.close()
      }
    }
    expect(raw.length).toBeGreaterThan(0)
    for (const secret of secrets) expect(raw.includes(secret), 'a private number found in clear in the database').toBe(false)
  })
})

describe('the data folder', () => {
  const stack = useTestAgentNode('sqlite')

  it('is 0700 and the database files 0600', async () => {
    const { dataDir } = stack.agent.config
    // writes reach the -wal file; the -shm file exists while the database is open
    await stack.agent.admin('/v1/event-subscriptions')
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    const files = readdirSync(dataDir).filter((name) => name.startsWith('agent.sqlite'))
    expect(files).toEqual(expect.arrayContaining(['agent.sqlite', 'agent.sqlite-wal', 'agent.sqlite-shm']))
    for (const name of files) expect(statSync(join(dataDir, name)).mode & 0o777, name).toBe(0o600)
    expect(statSync(join(dataDir, LOCK_FILE)).mode & 0o777).toBe(0o600)
  })

  it('refuses a second agent-node on the same DATA_DIR before it opens the database', async () => {
    const { config } = stack.agent
    const attempt = startAgentNode(
      { ...config, publicPort: 0, adminPort: 0, databaseUrl: 'postgres://unreachable.invalid/db' },
      createLogger('silent'),
    )
    // the lock is checked first: the (unreachable) database is never tried
    await expect(attempt).rejects.toThrow(DataDirLockedError)
    await expect(attempt).rejects.toThrow(new RegExp(`in use by another agent-node \\(pid ${process.pid}`))
    // the first one still serves, and still holds the lock
    expect((await fetch(`http://127.0.0.1:${stack.agent.node.publicPort}/health`)).status).toBe(200)
    expect(readFileSync(join(config.dataDir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid))
  })
})
