/**
 * Undo steps of a start-up: each resource that needs closing registers how to close it as soon
 * as it exists, and a start-up that fails part way closes what was made, newest first (a server
 * before the agent, the agent before the database). Node 20 has no `AsyncDisposableStack`.
 */
import type { Logger } from '../logging/index.ts'

export class CleanupStack {
  private readonly steps: { name: string; run: () => unknown }[] = []

  constructor(private readonly logger: Logger) {}

  /** Registers `run` (named `name` in logs) to undo the resource just made. */
  defer(name: string, run: () => unknown): void {
    this.steps.push({ name, run })
  }

  /**
   * Runs every step, newest first, once. A step that fails is logged and the others still run,
   * so one stuck resource does not leave the database open.
   */
  async unwind(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step.run()
      } catch (error) {
        this.logger.warn({ err: error, step: step.name }, 'cleanup after a failed start-up failed')
      }
    }
  }
}
