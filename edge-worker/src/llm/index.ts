/**
 * The language model: providers behind one interface (`ChatModel`), chosen by `llm.provider`,
 * and the system prompt.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import { anthropicModel } from './anthropic.ts'
import { compatModel, LOCAL_DEFAULT_BASE_URL } from './compat.ts'
import type { ChatModel } from './types.ts'

export { LOCAL_DEFAULT_BASE_URL } from './compat.ts'
export { systemPromptFor } from './prompt.ts'
export type { ChatModel, ModelMessage, ModelReply, ModelRequest, ToolCall, ToolSpec } from './types.ts'

export type LlmSettings = AgentPackConfig['llm']

/** Per-request limit of a model call, ms. */
export const MODEL_TIMEOUT_MS = 60_000

/**
 * The chat model `llm` configures, or undefined when none is: `compat` needs a base URL or an
 * API key (the SDK's default endpoint), `anthropic` an API key, `local` nothing (its default base
 * URL is `LOCAL_DEFAULT_BASE_URL`).
 */
export function createChatModel(llm: LlmSettings): ChatModel | undefined {
  const settings = {
    baseUrl: llm.baseUrl,
    apiKey: llm.apiKey,
    model: llm.model,
    temperature: llm.temperature,
    maxTokens: llm.maxTokens,
    timeoutMs: MODEL_TIMEOUT_MS,
  }
  switch (llm.provider) {
    case 'anthropic':
      return llm.apiKey ? anthropicModel(settings) : undefined
    case 'local':
      return compatModel({ ...settings, baseUrl: llm.baseUrl ?? LOCAL_DEFAULT_BASE_URL }, 'local')
    default:
      return llm.baseUrl || llm.apiKey ? compatModel(settings) : undefined
  }
}
