/**
 * What the conversation says on its own (not the model): the greeting from the agent pack and
 * the fallbacks when no model answers. The fallbacks can be localized per language through
 * `languages.<lang>.strings` under the keys of `DEFAULT_TEXTS`.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'

/** Stands for `{userName}` while the user's name is unknown: "Hello {userName}!" → "Hello there!". */
export const UNKNOWN_USER_NAME = 'there'

/** English defaults of the conversation's own texts, by `strings` key. */
export const DEFAULT_TEXTS = {
  LLM_NOT_CONFIGURED: 'No language model is configured for this agent yet, so I cannot answer your messages. Please let the operator of this service know.',
  LLM_UNAVAILABLE: 'Sorry, I could not reach the language model just now. Please try again in a moment.',
} as const

/** `languages.<language>.strings[key]`, else the English default. */
export function localizedText(config: AgentPackConfig, language: string, key: keyof typeof DEFAULT_TEXTS): string {
  return config.languages[language]?.strings[key] ?? DEFAULT_TEXTS[key]
}

/**
 * The greeting for `language`, with `{userName}` filled, or `undefined` when `flows.welcome` is
 * disabled or there is no template. The template is `languages.<lang>.greetingMessage`, or, when
 * `flows.welcome.templateKey` names another key, `languages.<lang>.strings[templateKey]`.
 */
export function greetingFor(config: AgentPackConfig, language: string): string | undefined {
  const welcome = config.flows.welcome
  if (welcome.enabled === false) return undefined
  const entry = config.languages[language]
  const key = welcome.templateKey ?? 'greetingMessage'
  const template = key === 'greetingMessage' || key === 'welcomeMessage' ? entry?.greetingMessage : entry?.strings[key]
  return template?.replaceAll('{userName}', UNKNOWN_USER_NAME)
}
