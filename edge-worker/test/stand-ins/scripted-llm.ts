/**
 * A scripted OpenAI-compatible chat server for tests and benchmarks (no model weights here).
 * Serves `POST /v1/chat/completions` (non-streaming, with function tool calls) on 127.0.0.1 with
 * a random port; any other path answers 404 JSON.
 */
import { startJsonServer } from './json-server.ts'

/** One chat message as the client sent it (`tool_calls` on assistant messages, `tool_call_id` on tool results). */
export interface ScriptedChatMessage {
  role: string
  content: unknown
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
  tool_call_id?: string
}

/** A recorded request body of `/v1/chat/completions`. */
export interface ScriptedChatRequest {
  model: string
  messages: ScriptedChatMessage[]
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: unknown } }[]
  [field: string]: unknown
}

/** A scripted answer with tool calls (and optional text). */
export interface ScriptedToolCalls {
  text?: string
  toolCalls: { name: string; arguments: Record<string, unknown> }[]
}

export interface ScriptedLlmOptions {
  /** Produces the answer from the request's messages: text, or tool calls; a throw answers 500. Default `echo: <last user text>`. */
  reply?: (
    messages: ScriptedChatMessage[],
    request: ScriptedChatRequest,
  ) => string | ScriptedToolCalls | Promise<string | ScriptedToolCalls>
  /** Delay before each answer, in milliseconds. */
  delayMs?: number
}

export interface ScriptedLlm {
  /** Base URL for an OpenAI-compatible client, ending in `/v1`. */
  url: string
  /** Bodies of every chat-completions request received, in order. */
  requests: ScriptedChatRequest[]
  close(): Promise<void>
}

/** `echo: <content of the last user message>`. */
export function echoLastUserMessage(messages: ScriptedChatMessage[]): string {
  const last = messages.findLast((message) => message.role === 'user')
  return `echo: ${typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '')}`
}

function isChatRequest(body: unknown): body is ScriptedChatRequest {
  const candidate = body as Partial<ScriptedChatRequest> | null
  return typeof candidate?.model === 'string' && Array.isArray(candidate.messages)
}

/** Rough token count for the `usage` block: whitespace-separated words. */
function countTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length
}

const apiError = (message: string, type = 'invalid_request_error', code: string | null = null) => ({ error: { message, type, code } })

/** Starts the server; resolves once it listens. */
export async function startScriptedLlm({ reply = echoLastUserMessage, delayMs = 0 }: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const requests: ScriptedChatRequest[] = []
  let completions = 0
  const server = await startJsonServer({
    path: '/v1/chat/completions',
    notFound: (method, path) => apiError(`no route for ${method} ${path}`, 'invalid_request_error', 'not_found'),
    badJson: () => apiError('request body is not JSON'),
    async handle(body) {
      if (!isChatRequest(body)) return { status: 400, body: apiError('model and messages are required') }
      requests.push(body)
      if (body.stream === true) return { status: 400, body: apiError('streaming is not supported by the scripted server') }
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
      let answer: string | ScriptedToolCalls
      try {
        answer = await reply(body.messages, body)
      } catch (error) {
        return { status: 500, body: apiError(error instanceof Error ? error.message : String(error), 'server_error') }
      }
      completions += 1
      const content = typeof answer === 'string' ? answer : (answer.text ?? null)
      const toolCalls =
        typeof answer === 'string'
          ? []
          : answer.toolCalls.map((call, index) => ({
              id: `call_${completions}_${index}`,
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.arguments) },
            }))
      const promptTokens = body.messages.reduce(
        (sum, message) => sum + countTokens(typeof message.content === 'string' ? message.content : ''),
        0,
      )
      const completionTokens = countTokens(content ?? '')
      return {
        status: 200,
        body: {
          id: `chatcmpl-scripted-${completions}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
              logprobs: null,
              finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
            },
          ],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        },
      }
    },
  })
  return { url: `${server.origin}/v1`, requests, close: server.close }
}
