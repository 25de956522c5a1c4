/**
 * One model turn: the user's message, the memory window and the tools
 * this user may use go to the model; each tool call it asks for is decided by the access policy,
 * run with a time limit, and its result (or its failure, as text) handed back, until the model
 * answers in text or the step limit is reached. A call that needs an approval is not run: the
 * model is told so and the step carries the approval it waits for. Pure over its ports
 * (`ChatModel`, `Tool`): no storage, no clock, no network of its own, so it is tested in plain Node.
 */
import type { ChatModel, ModelMessage, ToolCall, ToolSpec } from '../llm/types.ts'
import type { Principal } from '../session/index.ts'
import type { GuardedFetch } from '../net/outbound.ts'
import { decideCall, visibleTo, type ApprovalNeed } from '../tools/policy.ts'
import { DEFAULT_TOOL_TIMEOUT_MS, runTool } from '../tools/run.ts'
import type { Tool } from '../tools/types.ts'

/** Model calls that may ask for tools, per turn; one more call without tools then forces a text answer. */
export const DEFAULT_MAX_STEPS = 4

/** A message of the memory window. */
export interface HistoryTurn {
  role: 'user' | 'assistant'
  content: string
}

/** One tool call of a turn and its outcome, for the conversation record. */
export interface ToolStep {
  call: ToolCall
  /** The text handed back to the model: the result, or why there is none. */
  result: string
  ok: boolean
  /** Set when the call was not run because it waits for an approval (tools/policy.ts `decideCall`). */
  approval?: ApprovalNeed
}

/** What the model is told about a call that waits for an approval. */
export function approvalPendingResult(need: ApprovalNeed): string {
  return `not run yet: this call needs an approval from a user with the role ${need.approvers.join(' or ')}. The user is being asked whether to submit an approval request; the result is sent to them once it is approved. Do not call the tool again.`
}

export interface TurnInput {
  model: ChatModel
  system: string
  /** The memory window, oldest first, without the user's new message. */
  history: readonly HistoryTurn[]
  user: string
  /** Every configured tool; the turn shows the model only those `principal` may use. */
  tools: readonly Tool[]
  principal: Principal
  /** Passed to tools: `integrations` and the guarded fetch. */
  integrations: unknown
  fetch: GuardedFetch
  maxSteps?: number
  toolTimeoutMs?: number
}

export interface TurnResult {
  /** The model's final text (empty when it gave none). */
  text: string
  /** Every tool call, in order; those with `approval` were not run and wait for the user's confirmation (flows/approvals). */
  steps: ToolStep[]
  /** Model calls made. */
  modelCalls: number
}

function specOf(tool: Tool): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.parameters }
}

/** Runs `call` for `principal`: denied, failed and timed-out calls become text for the model. */
async function runCall(call: ToolCall, input: TurnInput, timeoutMs: number): Promise<ToolStep> {
  const decision = decideCall(input.tools, call.name, input.principal)
  if (!decision.allowed) return { call, result: `error: ${decision.reason}`, ok: false }
  if (decision.approval) return { call, result: approvalPendingResult(decision.approval), ok: false, approval: decision.approval }
  const context = { principal: input.principal, integrations: input.integrations, fetch: input.fetch }
  return { call, ...(await runTool(decision.tool, call.arguments, context, timeoutMs)) }
}

/**
 * Runs one turn. @throws when a model call fails (the caller answers with an apology); tool
 * failures never throw, the model is told.
 */
export async function runTurn(input: TurnInput): Promise<TurnResult> {
  const maxSteps = input.maxSteps ?? DEFAULT_MAX_STEPS
  const timeoutMs = input.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS
  const specs = visibleTo(input.tools, input.principal).map(specOf)
  const messages: ModelMessage[] = [...input.history, { role: 'user', content: input.user }]
  const steps: ToolStep[] = []
  for (let call = 0; ; call++) {
    const last = call >= maxSteps
    const reply = await input.model.complete({ system: input.system, messages, tools: last ? [] : specs })
    if (!reply.toolCalls.length || last) return { text: reply.text, steps, modelCalls: call + 1 }
    messages.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls })
    for (const toolCall of reply.toolCalls) {
      const step = await runCall(toolCall, input, timeoutMs)
      steps.push(step)
      messages.push({ role: 'tool', toolCallId: toolCall.id, name: toolCall.name, content: step.result })
    }
  }
}
