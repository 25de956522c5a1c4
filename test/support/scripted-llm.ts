/**
 * A scripted OpenAI-compatible chat server for tests and benchmarks (no model weights here).
 * Serves `POST /v1/chat/completions` (non-streaming) on 127.0.0.1 with a random port; any other
 * path answers 404 JSON.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One chat message as the client sent it. */
export interface ScriptedChatMessage {
  role: string
  content: unknown
}

/** A recorded request body of `/v1/chat/completions`. */
export interface ScriptedChatRequest {
  model: string
  messages: ScriptedChatMessage[]
  [field: string]: unknown
}

export interface ScriptedLlmOptions {
  /** Produces the assistant text from the request's messages; a throw answers 500. Default `echo: <last user text>`. */
  reply?: (messages: ScriptedChatMessage[]) => string | Promise<string>
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

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function isChatRequest(body: unknown): body is ScriptedChatRequest {
  const candidate = body as Partial<ScriptedChatRequest> | null
  return typeof candidate?.model === 'string' && Array.isArray(candidate.messages)
}

/** Rough token count for the `usage` block: whitespace-separated words. */
function countTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length
}

/** Starts the server; resolves once it listens. */
export async function startScriptedLlm({ reply = echoLastUserMessage, delayMs = 0 }: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const requests: ScriptedChatRequest[] = []
  let completions = 0
  const server = createServer(async (request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    }
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      send(404, { error: { message: `no route for ${request.method} ${path}`, type: 'invalid_request_error', code: 'not_found' } })
      return
    }
    let body: unknown
    try {
      body = JSON.parse(await readBody(request))
    } catch {
      send(400, { error: { message: 'request body is not JSON', type: 'invalid_request_error', code: null } })
      return
    }
    if (!isChatRequest(body)) {
      send(400, { error: { message: 'model and messages are required', type: 'invalid_request_error', code: null } })
      return
    }
    requests.push(body)
    if (body.stream === true) {
      send(400, { error: { message: 'streaming is not supported by the scripted server', type: 'invalid_request_error', code: null } })
      return
    }
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
    let content: string
    try {
      content = await reply(body.messages)
    } catch (error) {
      send(500, { error: { message: error instanceof Error ? error.message : String(error), type: 'server_error', code: null } })
      return
    }
    completions += 1
    const promptTokens = body.messages.reduce((sum, message) => sum + countTokens(typeof message.content === 'string' ? message.content : ''), 0)
    const completionTokens = countTokens(content)
    send(200, {
      id: `chatcmpl-scripted-${completions}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections()
      server.close((error) => (error ? reject(error) : resolve()))
    }),
  }
}
