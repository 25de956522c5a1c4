/**
 * Rate-limited log lines for things a peer can trigger at will (garbage WebSocket frames,
 * envelopes refused before decryption, messages Credo cannot process): without a limit every one
 * of them is a log line, and a peer can fill the disk or drown the lines that matter.
 *
 * Each `key` (one kind of event) gets `burst` lines per `windowMs`; the lines past that are
 * counted, not written, and the first line written after the window carries `suppressed: <count>`.
 */
import type { Logger } from 'pino'

type Level = 'error' | 'warn' | 'info' | 'debug'

/** Lines per key per window, and the window in milliseconds. */
export interface RateLimit {
  burst: number
  windowMs: number
}

/** 10 lines per kind per minute. */
export const DEFAULT_LOG_RATE_LIMIT: RateLimit = { burst: 10, windowMs: 60_000 }

/** Most keys tracked at once (a key is a kind of event, not a peer: this only bounds mistakes). */
const MAX_KEYS = 1_000

export class RateLimitedLogger {
  private readonly windows = new Map<string, { start: number; written: number; suppressed: number }>()

  constructor(
    private readonly logger: Logger,
    private readonly limit: RateLimit = DEFAULT_LOG_RATE_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  /** Writes `message` at `level` with `fields`, unless `key` already used its lines in this window. */
  log(level: Level, key: string, fields: Record<string, unknown>, message: string): void {
    const now = this.now()
    let window = this.windows.get(key)
    if (!window || now - window.start >= this.limit.windowMs) {
      const suppressed = window?.suppressed ?? 0
      if (!window && this.windows.size >= MAX_KEYS) this.windows.clear()
      window = { start: now, written: 0, suppressed: 0 }
      this.windows.set(key, window)
      if (suppressed > 0) fields = { ...fields, suppressed }
    }
    if (window.written >= this.limit.burst) {
      window.suppressed++
      return
    }
    window.written++
    this.logger[level](fields, message)
  }
}
