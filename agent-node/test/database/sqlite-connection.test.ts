import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import Database from 'libsql'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { constraintViolation } from '../../src/database/dialect.ts'
import { SqliteConnection } from '../../src/database/sqlite.ts'

describe('SqliteConnection', () => {
  let dir: string
  let connection: SqliteConnection

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-sqlite-'))
    connection = new SqliteConnection(join(dir, 'test.sqlite'), { busyTimeoutMs: 1_000 })
    connection.exec('CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL, flag BIGINT)')
  })

  afterEach(() => {
    connection.close()
    rmSync(dir, { recursive: true, force: true })
    vi.restoreAllMocks()
  })

  it('prepares a statement once and reuses it for every later call with other values', () => {
    const prepare = vi.spyOn(Database.prototype, 'prepare')
    for (let n = 0; n < 5; n++) connection.run(sql`INSERT INTO items (id, n) VALUES (${`item-${n}`}, ${n})`)
    for (let n = 0; n < 5; n++) {
      expect(connection.all<{ n: number }>(sql`SELECT n FROM items WHERE id = ${`item-${n}`}`)).toEqual([{ n }])
    }
    expect(prepare.mock.calls.map(([text]) => text)).toEqual([
      'INSERT INTO items (id, n) VALUES (?, ?)',
      'SELECT n FROM items WHERE id = ?',
    ])
  })

  it('returns rows keyed by column, INTEGER as number, and how many rows a statement changed', () => {
    connection.run(sql`INSERT INTO items (id, n) VALUES (${'a'}, ${1}), (${'b'}, ${2})`)
    expect(connection.run(sql`UPDATE items SET n = n + 10`)).toBe(2)
    expect(connection.run(sql`DELETE FROM items WHERE id = ${'none'}`)).toBe(0)
    expect(connection.all(sql`SELECT id, n FROM items ORDER BY id`)).toEqual([
      { id: 'a', n: 11 },
      { id: 'b', n: 12 },
    ])
  })

  it('binds booleans as 0/1 and dates as epoch milliseconds', () => {
    const at = new Date('2026-01-02T03:04:05.678Z')
    connection.run(sql`INSERT INTO items (id, n, flag) VALUES (${'d'}, ${at}, ${true})`)
    expect(connection.all(sql`SELECT n, flag FROM items`)).toEqual([{ n: at.valueOf(), flag: 1 }])
  })

  it('runs a batch as one transaction: RETURNING rows per statement, and nothing written when one fails', () => {
    const results = connection.batch([
      sql`INSERT INTO items (id, n) VALUES (${'x'}, ${1})`,
      sql`UPDATE items SET n = n + 1 WHERE id = ${'x'} RETURNING n`,
    ])
    expect(results).toEqual([
      { changed: 1, rows: [] },
      { changed: 1, rows: [{ n: 2 }] },
    ])

    let failure: unknown
    try {
      connection.batch([sql`INSERT INTO items (id, n) VALUES (${'y'}, ${1})`, sql`INSERT INTO items (id, n) VALUES (${'x'}, ${1})`])
    } catch (error) {
      failure = error
    }
    expect(constraintViolation(failure)).toBe('unique')
    expect(connection.all(sql`SELECT id FROM items ORDER BY id`)).toEqual([{ id: 'x' }])
    // the connection is usable again, outside any transaction
    expect(connection.run(sql`INSERT INTO items (id, n) VALUES (${'z'}, ${3})`)).toBe(1)
  })

  it('closes once; a second close does nothing', () => {
    connection.close()
    expect(() => connection.close()).not.toThrow()
  })
})
