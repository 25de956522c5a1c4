/**
 * Chat completions through the `openai` SDK, against any chat-completions-compatible endpoint
 * (`llm.baseUrl`, key from COMPAT_API_KEY).
 */
import OpenAI from 'openai'
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import type { ChatMessage } from './prompt.ts'

export type LlmSettings = AgentPackConfig['llm']

/** Per-request limit of the model call, in milliseconds. */
const REQUEST_TIMEOUT_MS = 60_000

/**
 * Whether a model is configured: a base URL or an API key (the SDK's default endpoint). Without
 * either the agent says so instead of calling anything.
 */
export function isLlmConfigured(llm: LlmSettings): boolean {
  return Boolean(llm.baseUrl || llm.apiKey)
}

/**
 * Asks the model for the next assistant message (non-streaming), with `llm.model`,
 * `llm.temperature` and `llm.maxTokens`. A keyless endpoint (local servers) gets a placeholder key.
 * @returns the reply text, trimmed.
 * @throws on transport or API errors (after the SDK's one retry) and on an empty reply.
 */
export async function completeChat(llm: LlmSettings, messages: ChatMessage[]): Promise<string> {
  const client = new OpenAI({ baseURL: llm.baseUrl, apiKey: llm.apiKey ?? 'not-needed', maxRetries: 1, timeout: REQUEST_TIMEOUT_MS })
  const completion = await client.chat.completions.create({
    model: llm.model,
    temperature: llm.temperature,
    max_tokens: llm.maxTokens,
    messages,
  })
  const content = completion.choices[0]?.message.content?.trim()
  if (!content) throw new Error(`the model returned no text (finish reason: ${completion.choices[0]?.finish_reason ?? 'none'})`)
  return content
}
