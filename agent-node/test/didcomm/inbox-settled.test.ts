/**
 * The inbox deletes an envelope only once the events its processing published are stored (the
 * `settled` hook `app.ts` gives it: the publisher's drain), so a message of any type whose
 * `message-received` a crash lost is processed again at the next start. Real SQLite; Credo's
 * message receiver is a stand-in (unit test) that records what it was handed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentContext } from '@credo-ts/core'
import type { DidCommEncryptedMessage } from '@credo-ts/didcomm'
import { afterEach, describe, expect, it } from 'vitest'
import { selectRows } from '../../src/database/dialect.ts'
import { openDatabase, type Database } from '../../src/database/index.ts'
import { InboundInbox } from '../../src/didcomm/inbox/InboundInbox.ts'
import { createLogger } from '../../src/logging/index.ts'
import { conditions } from '../support/conditions.ts'
import { sql } from 'drizzle-orm'

const envelope = { protected: 'p', iv: 'i', ciphertext: 'c', tag: 't' } as DidCommEncryptedMessage

describe('inbox and the events of what it processed', () => {
  let dir: string
  let database: Database | undefined
  afterEach(async () => {
    await database?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('keeps an envelope stored until the events its processing published are stored', async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-inbox-'))
    database = await openDatabase(join(dir, 'agent.sqlite'))
    const processed: unknown[] = []
    const progress = conditions()
    const agentContext = {
      dependencyManager: {
        resolve: () => ({
          receiveMessage: async (received: unknown) => {
            processed.push(received)
            progress.changed()
          },
        }),
      },
    } as unknown as AgentContext
    let stored!: () => void
    let settledCalls = 0
    const settled = () => {
      settledCalls++
      progress.changed()
      return new Promise<void>((resolve) => (stored = resolve))
    }
    const stillStored = async () => (await selectRows<{ id: string }>(database!, sql`SELECT id FROM didcomm_inbox`)).length

    const inbox = await InboundInbox.open(database, createLogger('silent'), 'test-instance')
    await inbox.accept(envelope)
    inbox.start(agentContext, settled)
    await progress.until(() => processed.length === 1 && settledCalls === 1)
    expect(await stillStored()).toBe(1) // processed, its events not stored yet: kept
    stored()
    await inbox.stop()
    expect(await stillStored()).toBe(0)
  })

  it('deletes processed envelopes together, in one statement per batch, and the rest at stop', async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-inbox-'))
    database = await openDatabase(join(dir, 'agent.sqlite'))
    if (database.dialect !== 'sqlite') throw new Error('SQLite expected')
    // every statement the inbox runs that changes rows (its inserts and deletes) goes through `run`
    let runs = 0
    const { connection } = database
    const run = connection.run.bind(connection)
    connection.run = (query) => {
      runs++
      return run(query)
    }
    let processed = 0
    const progress = conditions()
    const agentContext = {
      dependencyManager: {
        resolve: () => ({
          receiveMessage: async () => {
            processed++
            progress.changed()
          },
        }),
      },
    } as unknown as AgentContext
    const stillStored = async () => (await selectRows<{ id: string }>(database!, sql`SELECT id FROM didcomm_inbox`)).length

    // a batch window longer than the test: only stop deletes
    const inbox = await InboundInbox.open(database, createLogger('silent'), 'test-instance', 60_000)
    await Promise.all([inbox.accept(envelope), inbox.accept(envelope), inbox.accept(envelope)])
    inbox.start(agentContext)
    await progress.until(() => processed === 3)
    expect(await stillStored()).toBe(3) // processed, waiting for the batch
    const before = runs
    await inbox.stop()
    expect(await stillStored()).toBe(0)
    expect(runs - before).toBe(1) // one DELETE for the three

    // a short window deletes without a stop
    const next = await InboundInbox.open(database, createLogger('silent'), 'test-instance', 10)
    await next.accept(envelope)
    next.start(agentContext)
    await progress.until(() => processed === 4)
    const deadline = Date.now() + 30_000
    while ((await stillStored()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await stillStored()).toBe(0)
    await next.stop()
  })
})
