/** A pino logger whose JSON lines are collected in memory, for tests that check what is logged. */
import { Writable } from 'node:stream'
import { pino, type Logger } from 'pino'

export interface LogLine {
  level: number
  msg: string
  [field: string]: unknown
}

/** A logger at `level` and the lines it wrote so far. */
export function captureLogs(level = 'debug'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine)
      done()
    },
  })
  return { logger: pino({ level }, stream), lines }
}
