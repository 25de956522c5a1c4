/**
 * Logging for agent-node: one pino logger, with fields that may carry secrets redacted, and an
 * adapter so Credo logs through it too.
 */
import { BaseLogger, LogLevel } from '@credo-ts/core'
import { pino, type Logger } from 'pino'
import { RateLimitedLogger } from './rate-limited.ts'

export type { Logger } from 'pino'

/** Paths pino replaces with `[redacted]` wherever they appear in a log object. */
const REDACT = [
  'secret',
  '*.secret',
  'walletKey',
  '*.walletKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers["x-parley-signature"]',
  'privateJwk',
  '*.privateJwk',
  'd',
  '*.d',
  'databaseUrl',
  '*.databaseUrl',
  'adminApiTokens',
  '*.adminApiTokens',
  // What a user typed: Credo logs every received plaintext message at debug (a basic message's
  // `content` may hold a secret meant for an MCP server, manifest spec "Authentication" rule 7).
  'content',
  '*.content',
]

/** Creates the process logger at `level`; JSON lines on stdout. */
export function createLogger(level: string, name = 'agent-node'): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' } })
}

/**
 * The logger of failures that end the process before (or while) it starts: JSON lines on stderr,
 * written synchronously (the process may exit right after), at `info` whatever LOG_LEVEL says.
 */
export function createStartupFailureLogger(name = 'agent-node'): Logger {
  return pino({ name, level: 'info', redact: { paths: REDACT, censor: '[redacted]' } }, pino.destination({ dest: 2, sync: true }))
}

const credoToPino: Record<LogLevel, string> = {
  [LogLevel.test]: 'trace',
  [LogLevel.trace]: 'trace',
  [LogLevel.debug]: 'debug',
  [LogLevel.info]: 'info',
  [LogLevel.warn]: 'warn',
  [LogLevel.error]: 'error',
  [LogLevel.fatal]: 'fatal',
  [LogLevel.off]: 'silent',
}

/** Characters of a Credo message that make its rate-limit key (the rest often names a message id). */
const CREDO_KEY_LENGTH = 48

/**
 * Credo's `Logger` interface on top of pino. Credo is chatty at info, so its level is one step
 * quieter than ours by default (warn when we log info). Its warn and error lines are
 * rate-limited per message: most are about messages peers sent (garbage, messages no handler
 * takes), which a peer can repeat at will.
 */
export class CredoLogger extends BaseLogger {
  private readonly rateLimited: RateLimitedLogger

  constructor(
    private readonly logger: Logger,
    logLevel: LogLevel,
  ) {
    super(logLevel)
    this.rateLimited = new RateLimitedLogger(logger)
  }

  private log(level: LogLevel, message: string, data?: Record<string, unknown>): void {
    if (!this.isEnabled(level)) return
    const method = credoToPino[level] as 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'
    const fields = { credo: true, ...(data?.error instanceof Error ? { ...data, err: data.error, error: undefined } : data) }
    if (method === 'warn' || method === 'error') this.rateLimited.log(method, message.slice(0, CREDO_KEY_LENGTH), fields, message)
    else this.logger[method](fields, message)
  }

  test(message: string, data?: Record<string, unknown>) {
    this.log(LogLevel.test, message, data)
  }
  trace(message: string, data?: Record<string, unknown>) {
    this.log(LogLevel.trace, message, data)
  }
  debug(message: string, data?: Record<string, unknown>) {
    this.log(LogLevel.debug, message, data)
  }
  info(message: string, data?: Record<string, unknown>) {
    this.log(LogLevel.info, message, data)
  }
  warn(message: string, data?: Record<string, unknown>) {
    this.log(LogLevel.warn, message, data)
  }
  error(message: string, data?: Record<string, unknown>) {
    this.log(LogLevel.error, message, data)
  }
  fatal(message: string, data?: Record<string, unknown>) {
    this.log(LogLevel.fatal, message, data)
  }
}

/** The Credo log level that matches our pino level, one step quieter at info. */
export function credoLogLevel(level: string): LogLevel {
  switch (level) {
    case 'trace':
      return LogLevel.trace
    case 'debug':
      return LogLevel.debug
    case 'info':
      return LogLevel.warn
    case 'warn':
      return LogLevel.warn
    case 'error':
      return LogLevel.error
    case 'fatal':
      return LogLevel.fatal
    default:
      return LogLevel.off
  }
}
