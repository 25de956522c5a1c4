/**
 * Building what the model is given: the system prompt chosen by the agent pack, then the most
 * recent turns of the conversation. Pure functions, no I/O.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'

/** One message of the conversation as stored: who said it and what. */
export interface Turn {
  role: 'user' | 'assistant'
  content: string
}

/** A chat-completions message (the subset this module produces). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/** Used when neither `languages.<lang>.systemPrompt` nor `llm.agentPrompt` is set. */
export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful, friendly assistant. Answer clearly and briefly.'

/**
 * The system prompt for `language`: `languages.<language>.systemPrompt`, else `llm.agentPrompt`,
 * else `DEFAULT_SYSTEM_PROMPT`.
 */
export function systemPromptFor(config: AgentPackConfig, language: string): string {
  return config.languages[language]?.systemPrompt ?? config.llm.agentPrompt ?? DEFAULT_SYSTEM_PROMPT
}

/**
 * The messages of one completion: `systemPrompt`, then the last `window` of `history` (oldest
 * first; `history` ends with the user turn being answered). `window` counts turns, user and
 * assistant alike (`memory.window`).
 */
export function buildChatMessages(systemPrompt: string, history: readonly Turn[], window: number): ChatMessage[] {
  const recent = window > 0 ? history.slice(-window) : []
  return [{ role: 'system', content: systemPrompt }, ...recent.map(({ role, content }) => ({ role, content }))]
}
