import { describe, expect, it } from 'vitest'
import { conversationRetention, retentionMs } from '../../src/conversation/retention.ts'
import type { Logger } from '../../src/logging/index.ts'

function recordingLogger() {
  const warnings: { message: string; fields?: Record<string, unknown> }[] = []
  const ignore = () => undefined
  const log: Logger = {
    debug: ignore,
    info: ignore,
    warn: (message, fields) => void warnings.push({ message, fields }),
    error: ignore,
    child: () => log,
  }
  return { warnings, log }
}

describe('CONVERSATION_RETENTION_DAYS', () => {
  it('is days, decimals allowed; unset, empty and 0 keep the record forever', () => {
    const { warnings, log } = recordingLogger()
    expect(retentionMs('30', log)).toBe(30 * 86_400_000)
    expect(retentionMs(' 0.5 ', log)).toBe(43_200_000)
    for (const forever of [undefined, '', '0']) expect(retentionMs(forever, log)).toBeUndefined()
    expect(warnings).toEqual([])
  })

  it('warns, naming the variable and the value, and keeps the record forever when it is not a number of days >= 0', () => {
    for (const bad of ['thirty', '-1', 'Infinity']) {
      const { warnings, log } = recordingLogger()
      expect(retentionMs(bad, log)).toBeUndefined()
      expect(warnings).toEqual([{ message: expect.stringContaining('CONVERSATION_RETENTION_DAYS'), fields: { value: bad } }])
    }
  })

  it('is worked out once per Worker env: a bad value warns once, not once per conversation object', () => {
    const { warnings, log } = recordingLogger()
    const env = { CONVERSATION_RETENTION_DAYS: 'thirty' }
    for (let conversation = 0; conversation < 3; conversation++) expect(conversationRetention(env, log)).toBeUndefined()
    expect(warnings).toHaveLength(1)
    const days = { CONVERSATION_RETENTION_DAYS: '2' }
    expect(conversationRetention(days, log)).toBe(2 * 86_400_000)
    expect(conversationRetention(days, log)).toBe(2 * 86_400_000)
    expect(conversationRetention({ CONVERSATION_RETENTION_DAYS: '-1' }, log)).toBeUndefined()
    expect(warnings).toHaveLength(2)
  })
})
