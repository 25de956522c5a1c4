/**
 * Languages and texts (manifest spec "languages"): which language a user gets, and every text in
 * it. A text is looked up in the pack's entry for the user's language, then in the pack's entry
 * for `metadata.defaultLanguage`, then in the built-in texts of the user's language, of the
 * default language, and of English. Pure functions.
 */
import type { AgentPackConfig } from '@parley/shared/agent-pack'
import { BUILT_IN_LANGUAGE, BUILT_IN_TEXTS, type TextKey } from './texts.ts'

export { BUILT_IN_LANGUAGE, BUILT_IN_TEXTS, type TextKey } from './texts.ts'

/** A text key: a built-in one, or any key of `languages.<lang>.strings`. */
export type AnyTextKey = TextKey | (string & {})

/**
 * The language code a user gets: `preferredLanguage` from their profile (a BCP 47 tag; `es-AR`
 * becomes `es-AR` when the pack has an entry of that exact name, else its primary subtag `es`),
 * else `metadata.defaultLanguage` (itself `en` by default).
 */
export function chooseLanguage(config: AgentPackConfig, preferredLanguage?: string | null): string {
  const tag = preferredLanguage?.trim()
  if (!tag) return config.metadata.defaultLanguage
  if (config.languages[tag]) return tag
  return tag.split('-')[0]!.toLowerCase()
}

/** The pack's own value of `key` in `language`: the entry's field for the two prompt keys, else `strings[key]`. */
function packText(config: AgentPackConfig, language: string, key: AnyTextKey): string | undefined {
  const entry = config.languages[language]
  if (!entry) return undefined
  if (key === 'greetingMessage' || key === 'welcomeMessage') return entry.greetingMessage
  if (key === 'systemPrompt') return entry.systemPrompt
  return entry.strings[key]
}

/**
 * The pack's text `key` for `language`, falling back to the default language; undefined when the
 * pack has neither (the caller decides whether the built-in text applies).
 */
export function packTextFor(config: AgentPackConfig, language: string, key: AnyTextKey): string | undefined {
  return packText(config, language, key) ?? packText(config, config.metadata.defaultLanguage, key)
}

/** The built-in text `key` in `language`, else the default language's, else English; undefined for a key with no built-in text. */
export function builtInText(config: AgentPackConfig, language: string, key: AnyTextKey): string | undefined {
  for (const candidate of [language, config.metadata.defaultLanguage, BUILT_IN_LANGUAGE]) {
    const text = BUILT_IN_TEXTS[candidate]?.[key as TextKey]
    if (text !== undefined) return text
  }
  return undefined
}

/** Text `key` for `language` with the full fallback chain (pack, then built-in). */
export function textFor(config: AgentPackConfig, language: string, key: TextKey): string
export function textFor(config: AgentPackConfig, language: string, key: AnyTextKey): string | undefined
export function textFor(config: AgentPackConfig, language: string, key: AnyTextKey): string | undefined {
  return packTextFor(config, language, key) ?? builtInText(config, language, key)
}

/** `template` with `{userName}` filled: the user's name, or the language's USER_NAME_UNKNOWN text. */
export function fillUserName(config: AgentPackConfig, language: string, template: string, userName?: string | null): string {
  const name = userName?.trim() || textFor(config, language, 'USER_NAME_UNKNOWN')
  return template.replaceAll('{userName}', name)
}
