/**
 * The agent's database: one drizzle connection shared by every store of agent-node (Credo
 * records, keys, and later the event outbox). SQLite through `@libsql/client` is the embedded
 * default; stores keep to SQL that PostgreSQL also speaks so a `pg` dialect can be added here.
 */
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { createClient, type Client } from '@libsql/client'
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql'

/** How long a writer waits for a lock held by another connection, in milliseconds. */
const BUSY_TIMEOUT_MS = 5_000

export interface Database {
  /** drizzle handle; every store builds its queries on it. */
  db: LibSQLDatabase
  /** The SQL dialect, for the few statements that differ between dialects. */
  dialect: 'sqlite'
  close(): Promise<void>
}

/**
 * Opens the SQLite database at `path` (a file path, created with its folder if missing, or
 * `:memory:`), in WAL mode so readers never wait on the writer.
 */
export async function openDatabase(path: string): Promise<Database> {
  let url = ':memory:'
  if (path !== ':memory:') {
    const file = resolve(path)
    mkdirSync(dirname(file), { recursive: true })
    url = `file:${file}`
  }
  // `timeout` is the busy timeout of every pooled connection (a PRAGMA would reach only one).
  const client: Client = createClient({ url, timeout: BUSY_TIMEOUT_MS })
  if (url !== ':memory:') await client.execute('PRAGMA journal_mode = WAL')
  await client.execute('PRAGMA foreign_keys = ON')
  return { db: drizzle(client), dialect: 'sqlite', close: async () => client.close() }
}
