import { asc, isNull } from 'drizzle-orm'
import { QueryBuilder } from 'drizzle-orm/sqlite-core'
import { describe, expect, it } from 'vitest'
import { events } from '../../src/conversation/schema.ts'
import { inlineLimit } from '../../src/storage/index.ts'

describe('inlineLimit (a LIMIT in the statement text, not bound)', () => {
  it('writes the limit into the SQL, so the statement has no LIMIT parameter to bind', () => {
    const query = new QueryBuilder().select().from(events).where(isNull(events.handledAt)).orderBy(asc(events.seq)).limit(inlineLimit(1))
    const { sql, params } = query.toSQL()
    expect(sql).toMatch(/ limit 1$/)
    expect(params).toEqual([])
  })

  it('binds a plain number, as drizzle does (what inlineLimit avoids)', () => {
    const { sql, params } = new QueryBuilder().select().from(events).limit(1).toSQL()
    expect(sql).toMatch(/ limit \?$/)
    expect(params).toEqual([1])
  })

  it('refuses what is not a non-negative integer, since it becomes SQL text', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      expect(() => inlineLimit(bad)).toThrow(RangeError)
    }
    expect(() => inlineLimit(0)).not.toThrow()
  })
})
