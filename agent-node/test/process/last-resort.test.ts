/** The last-resort handlers: socket errors and rejections keep the process, anything else exits 1. */
import { describe, expect, it } from 'vitest'
import { isSocketError, lastResortHandlers } from '../../src/process/last-resort.ts'
import { captureLogs } from '../support/log-lines.ts'

const coded = (code: string) => Object.assign(new Error(code), { code })

describe('last-resort handlers', () => {
  it('tells socket and protocol errors from the rest', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'WS_ERR_INVALID_UTF8', 'HPE_INVALID_METHOD'])
      expect(isSocketError(coded(code)), code).toBe(true)
    for (const error of [new TypeError('x'), coded('ERR_ASSERTION'), 'a string', null]) expect(isSocketError(error)).toBe(false)
  })

  it('logs a socket error and keeps serving; exits 1 with a fatal line on any other exception', () => {
    const { logger, lines } = captureLogs()
    const exits: number[] = []
    const handlers = lastResortHandlers(logger, (code) => exits.push(code))
    handlers.onUncaughtException(coded('WS_ERR_EXPECTED_MASK'))
    expect(exits).toEqual([])
    expect(lines.at(-1)?.msg).toMatch(/agent-node keeps serving/)
    handlers.onUncaughtException(new TypeError('a bug'))
    expect(exits).toEqual([1])
    expect(lines.at(-1)).toMatchObject({ level: 60, msg: expect.stringMatching(/exiting/) })
  })

  it('logs an unhandled rejection and keeps serving', () => {
    const { logger, lines } = captureLogs()
    const exits: number[] = []
    lastResortHandlers(logger, (code) => exits.push(code)).onUnhandledRejection(new Error('lost'))
    expect(exits).toEqual([])
    expect(lines.at(-1)).toMatchObject({ level: 50, msg: expect.stringMatching(/unhandled promise rejection/) })
  })
})
