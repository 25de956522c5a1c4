/**
 * A scripted Anthropic Messages API server for tests (no model here): `POST /v1/messages`
 * (non-streaming, with `tool_use`), on 127.0.0.1 with a random port. It checks the key the way
 * the SDK may send it, `x-api-key` or `Authorization: Bearer`, and answers 401 otherwise.
 */
import { startJsonServer } from './json-server.ts'
import type { ScriptedToolCalls } from './scripted-llm.ts'

/** A content block as the client sent it. */
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: unknown }

/** One message as the client sent it. */
export interface AnthropicMessage {
  role: 'user' | 'assistant'
  content: string | AnthropicBlock[]
}

/** A recorded request body of `/v1/messages`. */
export interface AnthropicRequest {
  model: string
  max_tokens: number
  system?: unknown
  messages: AnthropicMessage[]
  tools?: { name: string; description?: string; input_schema: unknown }[]
  [field: string]: unknown
}

export interface ScriptedAnthropic {
  /** Base URL for the SDK (`baseURL`): the origin, without `/v1`. */
  url: string
  requests: AnthropicRequest[]
  close(): Promise<void>
}

const apiError = (type: string, message: string) => ({ type: 'error', error: { type, message } })

/** Starts the server; `apiKey` is the key every request must carry. */
export async function startScriptedAnthropic(options: {
  apiKey: string
  reply: (messages: AnthropicMessage[], request: AnthropicRequest) => string | ScriptedToolCalls
}): Promise<ScriptedAnthropic> {
  const requests: AnthropicRequest[] = []
  let count = 0
  const server = await startJsonServer({
    path: '/v1/messages',
    notFound: (method, path) => apiError('not_found_error', `no route for ${method} ${path}`),
    badJson: () => apiError('invalid_request_error', 'request body is not JSON'),
    async handle(body, request) {
      const key = request.headers['x-api-key'] ?? request.headers.authorization?.replace(/^Bearer /, '')
      if (key !== options.apiKey) return { status: 401, body: apiError('authentication_error', 'invalid x-api-key') }
      const candidate = body as Partial<AnthropicRequest>
      if (typeof candidate.model !== 'string' || !Array.isArray(candidate.messages) || typeof candidate.max_tokens !== 'number') {
        return { status: 400, body: apiError('invalid_request_error', 'model, max_tokens and messages are required') }
      }
      requests.push(candidate as AnthropicRequest)
      count += 1
      const answer = options.reply(candidate.messages, candidate as AnthropicRequest)
      const text = typeof answer === 'string' ? answer : answer.text
      const calls = typeof answer === 'string' ? [] : answer.toolCalls
      const content = [
        ...(text ? [{ type: 'text', text }] : []),
        ...calls.map((call, index) => ({ type: 'tool_use', id: `toolu_${count}_${index}`, name: call.name, input: call.arguments })),
      ]
      return {
        status: 200,
        body: {
          id: `msg_scripted_${count}`,
          type: 'message',
          role: 'assistant',
          model: candidate.model,
          content,
          stop_reason: calls.length ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }
    },
  })
  return { url: server.origin, requests, close: server.close }
}
