/**
 * Providers `compat` and `local`: the chat-completions API through the `openai` SDK, against any
 * compatible base URL (`llm.baseUrl`; for `local` an OpenAI-compatible server on this host,
 * `LOCAL_DEFAULT_BASE_URL` by default). Tools are chat-completions functions.
 */
import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { ChatModel, ModelMessage, ModelReply, ModelRequest, ToolCall } from './types.ts'

/** Base URL of provider `local` when `llm.baseUrl` is not set: Ollama's OpenAI-compatible endpoint (llama.cpp, vLLM and LM Studio serve the same API on their own ports). */
export const LOCAL_DEFAULT_BASE_URL = 'http://127.0.0.1:11434/v1'

/** Settings of a chat-completions model. */
export interface CompatSettings {
  baseUrl?: string
  apiKey?: string
  model: string
  temperature: number
  maxTokens: number
  /** Per-request limit, ms. */
  timeoutMs: number
}

function toChatMessages(system: string, messages: readonly ModelMessage[]): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: system },
    ...messages.map((message): ChatCompletionMessageParam => {
      if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content }
      if (message.role === 'assistant' && message.toolCalls?.length) {
        return {
          role: 'assistant',
          content: message.content || null,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        }
      }
      return { role: message.role, content: message.content }
    }),
  ]
}

/** Arguments the model sent as JSON text; anything that is not a JSON object becomes `{ input: text }`. */
function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}')
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
  } catch {
    // fall through
  }
  return { input: text }
}

/** A chat-completions model. A keyless endpoint (local servers) gets a placeholder key. */
export function compatModel(settings: CompatSettings, kind = 'compat'): ChatModel {
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey ?? 'not-needed',
    maxRetries: 1,
    timeout: settings.timeoutMs,
  })
  return {
    label: `${kind}:${settings.model}`,
    async complete({ system, messages, tools, signal }: ModelRequest): Promise<ModelReply> {
      const functions: ChatCompletionTool[] = tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }))
      const completion = await client.chat.completions.create(
        {
          model: settings.model,
          temperature: settings.temperature,
          max_tokens: settings.maxTokens,
          messages: toChatMessages(system, messages),
          ...(functions.length ? { tools: functions } : {}),
        },
        { signal },
      )
      const message = completion.choices[0]?.message
      const toolCalls: ToolCall[] = (message?.tool_calls ?? []).flatMap((call) =>
        call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments) }] : [],
      )
      return { text: message?.content?.trim() ?? '', toolCalls }
    },
  }
}
