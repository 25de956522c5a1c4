/** The language model: prompt building (pure) and the chat-completions client. */
export { completeChat, isLlmConfigured, type LlmSettings } from './client.ts'
export { buildChatMessages, DEFAULT_SYSTEM_PROMPT, systemPromptFor, type ChatMessage, type Turn } from './prompt.ts'
