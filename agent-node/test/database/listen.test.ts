/**
 * PostgreSQL `LISTEN` through `listen` (database/dialect.ts): notifications arrive, and once the
 * listener stopped, its connection is the pool's. When the server later ends that connection
 * (idle in the pool, as when a database is dropped with FORCE), the pool reports it; the stopped
 * listener neither reports it nor gives the connection back a second time (pg-pool throws on a
 * double release, outside any caller).
 */
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { listen, notify, selectRows } from '../../src/database/dialect.ts'
import { openDatabase } from '../../src/database/index.ts'
import { usePostgresTestDatabase } from '../support/temp-databases.ts'

describe('listen on PostgreSQL', () => {
  const server = usePostgresTestDatabase()

  it('hears notifications, and leaves its connection to the pool once stopped, also when the server ends it', async () => {
    const poolErrors: Error[] = []
    const database = await openDatabase(server.url, { onConnectionError: (error) => poolErrors.push(error) })
    const admin = await openDatabase(server.url)
    try {
      const payloads: string[] = []
      const listenerErrors: Error[] = []
      const stop = listen(
        database,
        'parley_listen_test',
        (payload) => payloads.push(payload),
        (error) => listenerErrors.push(error),
      )
      await expect
        .poll(async () => {
          await notify(database, 'parley_listen_test', 'hello')
          return payloads.length
        })
        .toBeGreaterThan(0)
      expect(payloads[0]).toBe('hello')
      await stop()

      // every connection of `database`'s pool, the listener's former one among them, is ended
      const ended = await selectRows(
        admin,
        sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      )
      expect(ended.length).toBeGreaterThan(1) // the listener's and the one `notify` used
      // the pool reports each one, the listener's former connection included
      await expect.poll(() => poolErrors.length).toBe(ended.length)
      expect(listenerErrors).toEqual([])
    } finally {
      await admin.close()
      await database.close()
    }
  })
})
