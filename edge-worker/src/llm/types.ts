/**
 * The chat model port: one interface every provider implements (compat, local, anthropic), so
 * the turn loop (turn/) never knows which one it talks to.
 */

/** A tool as the model sees it: name, description and JSON Schema of its arguments. */
export interface ToolSpec {
  name: string
  description: string
  /** JSON Schema (an object schema) of the arguments. */
  parameters: Record<string, unknown>
}

/** A call the model asks for. `id` pairs it with its result. */
export interface ToolCall {
  id: string
  name: string
  arguments: Record<string, unknown>
}

/** One message of a model exchange, provider-neutral. */
export type ModelMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string }

export interface ModelRequest {
  system: string
  messages: ModelMessage[]
  /** Tools the model may call (already filtered for the user); empty means none. */
  tools: ToolSpec[]
  signal?: AbortSignal
}

/** The model's answer: text, tool calls, or both. */
export interface ModelReply {
  text: string
  toolCalls: ToolCall[]
}

/** A chat model. @throws on transport or API errors. */
export interface ChatModel {
  /** Provider kind and model name, for logs. */
  readonly label: string
  complete(request: ModelRequest): Promise<ModelReply>
}
