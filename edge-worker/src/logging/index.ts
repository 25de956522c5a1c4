/**
 * Structured logging for the Worker: one JSON object per line on the console, which Workers Logs
 * index by field. Callers pass error messages, never secrets or whole configurations.
 */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const
export type LogLevel = keyof typeof LEVELS

/** A logger bound to a component name, e.g. `tunnel-gateway`. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
  /** A logger adding `fields` (e.g. `{ eventId }`) to every line, under the fields of each call. */
  child(fields: Record<string, unknown>): Logger
}

/**
 * Creates a logger for `component` that drops entries below `level` (a `LOG_LEVEL` value;
 * unknown or missing means `info`).
 */
export function createLogger(component: string, level: unknown): Logger {
  return boundLogger(component, LEVELS[level as LogLevel] ?? LEVELS.info, {})
}

function boundLogger(component: string, threshold: number, bound: Record<string, unknown>): Logger {
  const write =
    (entryLevel: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (LEVELS[entryLevel] < threshold) return
      const line = JSON.stringify({ level: entryLevel, component, message, ...bound, ...fields })
      if (entryLevel === 'error') console.error(line)
      else if (entryLevel === 'warn') console.warn(line)
      else console.log(line)
    }
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (fields) => boundLogger(component, threshold, { ...bound, ...fields }),
  }
}

/** The message of a thrown value, for logs (no stack, no attached request data). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
