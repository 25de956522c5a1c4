/**
 * Spec sections `metadata` (who the agent is) and `languages` (its texts per language).
 */
import { DEFAULT_LANGUAGE } from '../defaults.ts'
import { section, textListValue, textMapValue, textValue } from '../values.ts'

/** `metadata`: who the agent is. */
export const MetadataSection = section({
  id: textValue().optional().describe('Unique agent identifier.'),
  displayName: textValue().optional().describe('Human-readable name.'),
  description: textValue().optional().describe('Description.'),
  defaultLanguage: textValue().default(DEFAULT_LANGUAGE).describe('Default language code.'),
  tags: textListValue().optional().describe('Tags.'),
})

/**
 * One entry of `languages`. The deprecated `welcomeMessage` is folded into `greetingMessage`
 * (which wins when both are set), so readers only see `greetingMessage`.
 */
export const LanguageEntry = section({
  greetingMessage: textValue().optional().describe("Greeting on connection; {userName} stands for the user's name."),
  welcomeMessage: textValue().optional().describe('Deprecated alias of greetingMessage.').meta({ deprecated: true }),
  systemPrompt: textValue().optional().describe('Model system prompt for this language.'),
  strings: textMapValue().default({}).describe('Localized literals addressed by key (menu labels, authentication messages, ...).'),
}).transform(({ welcomeMessage, ...entry }) => ({ ...entry, greetingMessage: entry.greetingMessage ?? welcomeMessage }))
