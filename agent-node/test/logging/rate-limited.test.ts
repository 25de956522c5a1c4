/** RateLimitedLogger: a burst per key per window, then a count of what was left out; Credo's warn/error lines go through it. */
import { describe, expect, it } from 'vitest'
import { LogLevel } from '@credo-ts/core'
import { CredoLogger } from '../../src/logging/index.ts'
import { DEFAULT_LOG_RATE_LIMIT, RateLimitedLogger } from '../../src/logging/rate-limited.ts'
import { captureLogs } from '../support/log-lines.ts'

describe('RateLimitedLogger', () => {
  it('writes `burst` lines per key per window, then reports how many it suppressed', () => {
    const { logger, lines } = captureLogs()
    let now = 0
    const log = new RateLimitedLogger(logger, { burst: 3, windowMs: 1_000 }, () => now)
    for (let i = 0; i < 10; i++) log.log('warn', 'garbage', { i }, 'garbage frame')
    log.log('warn', 'other', {}, 'another kind')
    expect(lines.map((line) => line.msg)).toEqual(['garbage frame', 'garbage frame', 'garbage frame', 'another kind'])
    now = 1_000
    log.log('warn', 'garbage', { i: 10 }, 'garbage frame')
    expect(lines.at(-1)).toMatchObject({ msg: 'garbage frame', i: 10, suppressed: 7 })
  })

  it("limits Credo's warn and error lines per message (a wallet can repeat them at will), not its info lines", () => {
    const { logger, lines } = captureLogs()
    const credo = new CredoLogger(logger, LogLevel.debug)
    for (let i = 0; i < 50; i++) credo.warn('could not send a receipt', { messageId: String(i) })
    for (let i = 0; i < 50; i++) credo.debug('routine line')
    expect(lines.filter((line) => line.msg === 'could not send a receipt')).toHaveLength(DEFAULT_LOG_RATE_LIMIT.burst)
    expect(lines.filter((line) => line.msg === 'routine line')).toHaveLength(50)
  })
})
