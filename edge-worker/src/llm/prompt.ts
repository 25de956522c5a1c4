/** The system prompt the model gets. Pure. */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import { builtInText, packTextFor } from '../i18n/index.ts'

/**
 * The system prompt for a user in `language`: `llm.agentPrompt` (the persona) followed by the
 * language's `systemPrompt` (falling back to the default language's). When the pack has neither,
 * the built-in system prompt of the language.
 */
export function systemPromptFor(config: AgentPackConfig, language: string): string {
  const parts = [config.llm.agentPrompt, packTextFor(config, language, 'systemPrompt')].filter((part): part is string =>
    Boolean(part?.trim()),
  )
  return parts.length ? parts.join('\n\n') : builtInText(config, language, 'systemPrompt')!
}
