/**
 * Failure reports of end-to-end tests. A CI log keeps the end of the run, where vitest prints each
 * failure's message: a wait that gives up says there what the stack's processes printed last,
 * instead of a bare timeout.
 */
import type { LocalStack, ManagedProcess } from '../../scripts/local-stack.ts'

/** Longest line kept in a report, in characters. */
const LINE_CHARS = 240

/** The last `lines` non-empty lines `proc` printed, each cut to `LINE_CHARS`, under a `name` heading. */
function lastOutput(name: string, proc: ManagedProcess, lines = 15): string {
  const tail = proc
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-lines)
    .map((line) => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line))
  return [`--- last output of ${name} ---`, ...tail].join('\n')
}

/** `lastOutput` of a local stack's agent-node and worker. */
export function lastStackOutput(stack: Pick<LocalStack, 'agent' | 'worker'>): string {
  return [lastOutput('agent-node', stack.agent), lastOutput('worker', stack.worker)].join('\n')
}

/**
 * Awaits `wait`; when it rejects, rejects with an Error whose message is the original one followed
 * by `report()` (what the test saw so far, `lastStackOutput`).
 */
export async function explainFailure<T>(wait: Promise<T>, report: () => string): Promise<T> {
  try {
    return await wait
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${report()}`, { cause: error })
  }
}
