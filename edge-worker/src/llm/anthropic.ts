/**
 * Provider `anthropic`: the Messages API with tool use through `@anthropic-ai/sdk` (1.13 runs in
 * workerd). The key is COMPAT_API_KEY (`llm.apiKey`); `llm.baseUrl` points the SDK at another
 * host (a proxy, a test server). `llm.temperature` is not sent: the SDK's Messages API types
 * (1.13) no longer carry it, and current models fix their own sampling.
 */
import Anthropic from '@anthropic-ai/sdk'
import type { ChatModel, ModelMessage, ModelReply, ModelRequest } from './types.ts'
import type { CompatSettings } from './compat.ts'

type MessageParam = Anthropic.MessageParam
type ContentBlockParam = Anthropic.ContentBlockParam

/**
 * Provider-neutral messages as Messages API turns: assistant tool calls become `tool_use` blocks
 * and their results `tool_result` blocks of the next user turn (consecutive results share it).
 */
function toAnthropicMessages(messages: readonly ModelMessage[]): MessageParam[] {
  const turns: MessageParam[] = []
  for (const message of messages) {
    if (message.role === 'tool') {
      const block: ContentBlockParam = { type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }
      const last = turns.at(-1)
      if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(block)
      else turns.push({ role: 'user', content: [block] })
    } else if (message.role === 'assistant') {
      const content: ContentBlockParam[] = []
      if (message.content) content.push({ type: 'text', text: message.content })
      for (const call of message.toolCalls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments })
      turns.push({ role: 'assistant', content })
    } else {
      turns.push({ role: 'user', content: message.content })
    }
  }
  return turns
}

/** A Messages API model. */
export function anthropicModel(settings: CompatSettings): ChatModel {
  const client = new Anthropic({ apiKey: settings.apiKey, baseURL: settings.baseUrl, maxRetries: 1, timeout: settings.timeoutMs })
  return {
    label: `anthropic:${settings.model}`,
    async complete({ system, messages, tools, signal }: ModelRequest): Promise<ModelReply> {
      const response = await client.messages.create(
        {
          model: settings.model,
          max_tokens: settings.maxTokens,
          system,
          messages: toAnthropicMessages(messages),
          ...(tools.length
            ? {
                tools: tools.map((tool) => ({
                  name: tool.name,
                  description: tool.description,
                  input_schema: tool.parameters as Anthropic.Tool.InputSchema,
                })),
              }
            : {}),
        },
        { signal },
      )
      const text = response.content
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join('')
        .trim()
      const toolCalls = response.content.flatMap((block) =>
        block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: (block.input ?? {}) as Record<string, unknown> }] : [],
      )
      return { text, toolCalls }
    },
  }
}
