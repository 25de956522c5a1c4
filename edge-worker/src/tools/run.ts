/**
 * Runs one tool call with a time limit: the one way a tool is executed, by a model turn (turn/)
 * and by an approved request (approvals/). A failure or a timeout becomes text, never a throw.
 */
import pTimeout, { TimeoutError } from 'p-timeout'
import type { Tool, ToolContext } from './types.ts'

/** Time limit of one tool call, ms. */
export const DEFAULT_TOOL_TIMEOUT_MS = 15_000

/** What a tool call gave: its result, or why there is none (`error: …`). */
export interface ToolOutcome {
  result: string
  ok: boolean
}

/** Runs `tool` with `args` under `context` (its `signal` is provided here), aborting it after `timeoutMs`. */
export async function runTool(
  tool: Tool,
  args: Record<string, unknown>,
  context: Omit<ToolContext, 'signal'>,
  timeoutMs = DEFAULT_TOOL_TIMEOUT_MS,
): Promise<ToolOutcome> {
  const controller = new AbortController()
  try {
    const result = await pTimeout(tool.execute(args, { ...context, signal: controller.signal }), {
      milliseconds: timeoutMs,
      message: `timed out after ${timeoutMs} ms`,
    })
    return { result, ok: true }
  } catch (error) {
    if (error instanceof TimeoutError) controller.abort()
    return { result: `error: ${error instanceof Error ? error.message : String(error)}`, ok: false }
  }
}
