/**
 * Durable Object storage migrations (`src/storage/`): an object whose storage the current release
 * made (every step of `conversation/migrations.ts` applied, rows stored) takes a step appended by
 * a later release once, in order, keeping its rows; opening again applies nothing twice.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { conversationFor } from '../src/bindings.ts'
import { migrations } from '../src/conversation/migrations.ts'
import { migrations as directoryMigrations } from '../src/directory/migrations.ts'
import { openDatabase } from '../src/storage/index.ts'

describe('Durable Object storage migrations', () => {
  it("upgrades a conversation's storage made by this release with a later step, keeping its rows", async () => {
    const connectionId = crypto.randomUUID()
    await runInDurableObject(conversationFor(env, connectionId), async (_instance, state) => {
      // the constructor applied this release's steps
      const applied = () =>
        state.storage.sql.exec<{ created_at: number }>('SELECT created_at FROM __drizzle_migrations ORDER BY created_at').toArray()
      expect(applied().map((row) => Number(row.created_at))).toEqual(migrations.map((_, i) => i + 1))
      state.storage.sql.exec('INSERT INTO conversation (connection_id) VALUES (?)', connectionId)
      state.storage.sql.exec("INSERT INTO events (id, seq, type, body, received_at) VALUES ('e1', 1, 'message-received', '{}', 5)")

      const next = [...migrations, `ALTER TABLE events ADD COLUMN note TEXT;\n--> statement-breakpoint\nUPDATE events SET note = 'kept'`]
      openDatabase(state, {}, next)
      await state.blockConcurrencyWhile(async () => {}) // the migration ran under it
      openDatabase(state, {}, next)
      await state.blockConcurrencyWhile(async () => {})

      expect(applied().map((row) => Number(row.created_at))).toEqual(next.map((_, i) => i + 1))
      expect(state.storage.sql.exec('SELECT id, seq, note FROM events').toArray()).toEqual([{ id: 'e1', seq: 1, note: 'kept' }])
      expect(state.storage.sql.exec('SELECT connection_id FROM conversation').toArray()).toEqual([{ connection_id: connectionId }])
    })
  })

  it('gives the members of a directory made before member_roles each of the roles they presented', async () => {
    const stub = env.DIRECTORY.get(env.DIRECTORY.idFromName(`directory-${crypto.randomUUID()}`))
    await runInDurableObject(stub, async (_instance, state) => {
      // the storage as the first release left it: members only, one migration applied
      const sql = state.storage.sql
      sql.exec('DROP TABLE member_roles')
      sql.exec('DROP INDEX members_admin')
      sql.exec('DELETE FROM __drizzle_migrations WHERE created_at > 1')
      sql.exec(`INSERT INTO members (connection_id, identity, roles, admin, since) VALUES ('c1', 'ann', '["editor","approver"]', 0, 1)`)
      sql.exec(`INSERT INTO members (connection_id, identity, roles, admin, since) VALUES ('c2', 'bob', '[]', 1, 2)`)

      openDatabase(state, {}, directoryMigrations)
      await state.blockConcurrencyWhile(async () => {}) // the migration ran under it

      expect(sql.exec('SELECT role, connection_id FROM member_roles ORDER BY role').toArray()).toEqual([
        { role: 'approver', connection_id: 'c1' },
        { role: 'editor', connection_id: 'c1' },
      ])
    })
  })
})
