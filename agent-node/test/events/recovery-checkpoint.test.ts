/**
 * The recovery checkpoint while agent-node runs (`RecoveryCheckpointer`, `src/events/recovery.ts`)
 * on a real outbox (SQLite and PostgreSQL): it moves to the place it noted one interval earlier,
 * only forward, and never again after an outbox write failed (the next start-up must then look
 * at everything since).
 */
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '@parley/shared'
import { execute } from '../../src/database/dialect.ts'
import { DeliveryEngine } from '../../src/events/delivery/engine.ts'
import { OutboxStore } from '../../src/events/outbox/store.ts'
import { EventPublisher } from '../../src/events/publisher.ts'
import { RecoveryCheckpointer } from '../../src/events/recovery.ts'
import { createLogger } from '../../src/logging/index.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'
import { eventually } from '../support/conditions.ts'

const logger = createLogger('silent')
const INTERVAL_MS = 20
const event = (n: number): AgentEvent => ({
  type: 'message-state-updated',
  messageId: crypto.randomUUID(),
  connectionId: 'c',
  state: 'sent',
  timestamp: n,
})

describe.each(dialects)('recovery checkpoint on %s', (dialect) => {
  const databases = useTempDatabases('parley-checkpoint-', dialect)

  it('follows the outbox one interval behind, and stops for good after a failed write', async () => {
    const database = await databases.open()
    const outbox = await OutboxStore.open(database)
    const events = new EventPublisher(outbox, new DeliveryEngine(outbox, logger), logger)
    const checkpointer = new RecoveryCheckpointer(outbox, events, logger, INTERVAL_MS)
    const checkpoint = () => outbox.recoveryCheckpoint('agent-node')
    try {
      const first = await events.publish(event(1))
      const startedAt = Date.now()
      checkpointer.start()
      // the place noted at the start, written one interval later
      await eventually(async () => expect(await checkpoint()).toBeDefined())
      expect((await checkpoint())!.position).toBe(first.position)
      expect((await checkpoint())!.through).toBeGreaterThanOrEqual(startedAt)

      const second = await events.publish(event(2))
      await eventually(async () => expect((await checkpoint())!.position).toBe(second.position))

      // an outbox write fails: the checkpoint stays where it was, whatever is stored later
      await execute(database, sql`ALTER TABLE event_outbox RENAME TO event_outbox_away`)
      await expect(events.publish(event(3))).rejects.toThrow()
      await execute(database, sql`ALTER TABLE event_outbox_away RENAME TO event_outbox`)
      const stuck = await checkpoint()
      const fourth = await events.publish(event(4))
      await new Promise((resolve) => setTimeout(resolve, 10 * INTERVAL_MS))
      expect(await checkpoint()).toEqual(stuck)
      expect(stuck!.position).toBeLessThan(fourth.position)
    } finally {
      await checkpointer.stop()
    }
  })
})
