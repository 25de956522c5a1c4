/**
 * The process's last-resort handlers, installed by `main.ts`. Every socket agent-node accepts or
 * dials has its own `'error'` listener; these catch what still slips through, so that nothing a
 * peer sends ends the process, without hiding real bugs:
 * - an uncaught exception that is a network or protocol error of one socket (`ECONNRESET`,
 *   `EPIPE`, `ws` frame errors `WS_ERR_*`, HTTP parser errors `HPE_*`, …) concerns that socket
 *   only: it is logged and agent-node keeps serving;
 * - any other uncaught exception may have left state half-changed: it is logged at `fatal` and
 *   the process exits with code 1 for its supervisor to restart it (the outbox, idempotency keys
 *   and start-up recovery make a restart lose nothing);
 * - an unhandled promise rejection ended one async task, not the process's state: logged,
 *   agent-node keeps serving.
 * Lines are rate-limited (a peer could otherwise trigger them in a loop).
 */
import type { Logger } from '../logging/index.ts'
import { RateLimitedLogger } from '../logging/rate-limited.ts'

/** Error codes that concern one socket, not the process. */
const SOCKET_ERROR_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
])

/** Whether `error` is a network or protocol error of one socket. */
export function isSocketError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && (SOCKET_ERROR_CODES.has(code) || code.startsWith('WS_ERR_') || code.startsWith('HPE_'))
}

/** The two handlers; `exit` ends the process (injected for tests). */
export function lastResortHandlers(logger: Logger, exit: (code: number) => void) {
  const log = new RateLimitedLogger(logger)
  return {
    onUncaughtException(error: unknown): void {
      if (isSocketError(error)) {
        log.log('error', 'uncaught-socket-error', { err: error }, 'uncaught socket error; that socket is lost, agent-node keeps serving')
        return
      }
      logger.fatal({ err: error }, 'uncaught exception; exiting for a clean restart')
      exit(1)
    },
    onUnhandledRejection(reason: unknown): void {
      log.log('error', 'unhandled-rejection', { err: reason }, 'unhandled promise rejection; agent-node keeps serving')
    },
  }
}

/** Installs `lastResortHandlers` on this process. */
export function installLastResortHandlers(logger: Logger): void {
  const handlers = lastResortHandlers(logger, (code) => process.exit(code))
  process.on('uncaughtException', handlers.onUncaughtException)
  process.on('unhandledRejection', handlers.onUnhandledRejection)
}
