/**
 * Redacting a received message in the outbox (`OutboxStore.redactReceivedMessage`, behind the
 * `redact-message` tunnel command): the `message-received` event found by its dedupe key, and
 * one stored before dedupe keys existed (none), both overwritten with the marker, once; other
 * messages untouched. How they are found (no scan): `outbox-read-plans.test.ts`.
 */
import type { AgentEvent } from '@parley/shared'
import { describe, expect, it } from 'vitest'
import { dedupeKeyOf } from '../../src/events/publisher.ts'
import { OutboxStore } from '../../src/events/outbox/store.ts'
import { dialects, useTempDatabases } from '../support/temp-databases.ts'

const received = (connectionId: string, id: string, content: string): AgentEvent => ({
  type: 'message-received',
  message: { type: 'text', id, connectionId, timestamp: 1, threadId: null, content },
})

describe.each(dialects)('redacting a received message in the outbox on %s', (dialect) => {
  const databases = useTempDatabases('outbox-redaction', dialect)

  it('overwrites the event found by its dedupe key, and one stored before keys, once; nothing else', async () => {
    const store = await OutboxStore.open(await databases.open())
    const keyed = received('c1', 'm-new', 'secret one')
    const legacy = received('c1', 'm-old', 'secret two')
    const other = received('c1', 'm-other', 'kept')
    const [a, b, c] = await store.append([
      { id: crypto.randomUUID(), connectionId: 'c1', event: keyed, dedupeKey: dedupeKeyOf('c1', keyed) },
      { id: crypto.randomUUID(), connectionId: 'c1', event: legacy }, // as stored before outbox step 3
      { id: crypto.randomUUID(), connectionId: 'c1', event: other, dedupeKey: dedupeKeyOf('c1', other) },
    ])
    expect(await store.redactReceivedMessage('c1', 'm-new', '[redacted]')).toBe(1)
    expect(await store.redactReceivedMessage('c1', 'm-old', '[redacted]')).toBe(1)
    expect(await store.redactReceivedMessage('c1', 'm-new', '[redacted]')).toBe(0)
    expect(await store.redactReceivedMessage('c2', 'm-other', '[redacted]')).toBe(0) // another connection's
    const content = async (id: string) => {
      const event = (await store.event(id))?.event
      return event?.type === 'message-received' && event.message.type === 'text' ? event.message.content : undefined
    }
    expect([await content(a!.id), await content(b!.id), await content(c!.id)]).toEqual(['[redacted]', '[redacted]', 'kept'])
  })
})
