/**
 * Spec section `llm`: the chat model. Its key is not part of the manifest: COMPAT_API_KEY (see
 * `AgentPackConfig`).
 */
import { LLM_PROVIDER_ALIASES } from '../aliases.ts'
import {
  DEFAULT_LLM_MAX_TOKENS,
  DEFAULT_LLM_MODEL,
  DEFAULT_LLM_PROVIDER,
  DEFAULT_LLM_TEMPERATURE,
  LLM_PROVIDERS,
  REASONING_EFFORTS,
} from '../defaults.ts'
import { booleanValue, choiceValue, numberValue, section, textValue, urlValue } from '../values.ts'

/** `llm`: the chat model. */
export const LlmSection = section({
  provider: choiceValue(LLM_PROVIDERS, LLM_PROVIDER_ALIASES)
    .default(DEFAULT_LLM_PROVIDER)
    .describe('Provider kind: compat (any chat-completions-compatible API), local or anthropic.'),
  model: textValue().default(DEFAULT_LLM_MODEL).describe('Model name.'),
  temperature: numberValue({ min: 0, max: 1 }).default(DEFAULT_LLM_TEMPERATURE).describe('Sampling temperature, 0 to 1.'),
  maxTokens: numberValue({ min: 1, integer: true }).default(DEFAULT_LLM_MAX_TOKENS).describe('Maximum tokens per completion.'),
  baseUrl: urlValue().optional().describe('Base URL of a compatible API.'),
  agentPrompt: textValue().optional().describe('Default persona prompt.'),
  verbose: booleanValue().optional().describe('Verbose model logging (secrets masked).'),
  reasoningEffort: choiceValue(REASONING_EFFORTS)
    .optional()
    .describe('Reasoning effort of reasoning-capable models (extension read from hologram-ai-agent packs).'),
})
