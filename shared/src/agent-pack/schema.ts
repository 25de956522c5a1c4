/**
 * The agent-pack manifest (spec: "Controller Configuration Manifest"), as one zod schema. Parsing a
 * manifest with it coerces `number/string` and `boolean/string` values and fills the built-in
 * defaults, so its output is the resolved configuration.
 *
 * Sections not typed yet (rag, tools, mcp, imageGeneration, speechToText, vision, integrations,
 * and flows other than `welcome`) are accepted and kept as `unknown`; each gets its schema here
 * when the feature that reads it lands.
 */
import { z } from 'zod'
import {
  DEFAULT_LANGUAGE,
  DEFAULT_LLM_MAX_TOKENS,
  DEFAULT_LLM_MODEL,
  DEFAULT_LLM_PROVIDER,
  DEFAULT_LLM_TEMPERATURE,
  DEFAULT_MEMORY_BACKEND,
  DEFAULT_MEMORY_WINDOW,
  DEFAULT_REDIS_URL,
  LLM_PROVIDERS,
  MEMORY_BACKENDS,
} from './defaults.ts'
import { booleanValue, choiceValue, numberValue, section, textListValue, textMapValue, textValue } from './values.ts'

/** `metadata`: who the agent is. */
export const MetadataSection = section({
  id: textValue().optional(),
  displayName: textValue().optional(),
  description: textValue().optional(),
  defaultLanguage: textValue().default(DEFAULT_LANGUAGE),
  tags: textListValue().optional(),
})

/**
 * One entry of `languages`. The deprecated `welcomeMessage` is folded into `greetingMessage`
 * (which wins when both are set), so readers only see `greetingMessage`.
 */
export const LanguageEntry = section({
  greetingMessage: textValue().optional(),
  welcomeMessage: textValue().optional(),
  systemPrompt: textValue().optional(),
  strings: textMapValue().default({}),
}).transform(({ welcomeMessage, ...entry }) => ({ ...entry, greetingMessage: entry.greetingMessage ?? welcomeMessage }))

/** `llm`: the chat model. The API key is not part of the manifest (see `AgentPackConfig`). */
export const LlmSection = section({
  provider: choiceValue(LLM_PROVIDERS).default(DEFAULT_LLM_PROVIDER),
  model: textValue().default(DEFAULT_LLM_MODEL),
  temperature: numberValue({ min: 0, max: 1 }).default(DEFAULT_LLM_TEMPERATURE),
  maxTokens: numberValue({ min: 1, integer: true }).default(DEFAULT_LLM_MAX_TOKENS),
  baseUrl: z.url({ error: 'expected a URL' }).optional(),
  agentPrompt: textValue().optional(),
  verbose: booleanValue().optional(),
})

/** `memory`: how much history the model sees and where it is kept. */
export const MemorySection = section({
  backend: choiceValue(MEMORY_BACKENDS).default(DEFAULT_MEMORY_BACKEND),
  window: numberValue({ min: 1, integer: true }).default(DEFAULT_MEMORY_WINDOW),
  redisUrl: textValue().default(DEFAULT_REDIS_URL),
})

/** `flows.welcome`: the greeting sent when a connection completes. */
export const WelcomeFlow = section({
  enabled: booleanValue().optional(),
  sendOnProfile: booleanValue().optional(),
  templateKey: textValue().optional(),
})

/** `flows`: `welcome` is typed; the other flows are kept as given. */
export const FlowsSection = z.looseObject({ welcome: WelcomeFlow.prefault({}) }, { error: 'expected a mapping' })

/** The whole manifest. Every top-level field is optional (spec rule 5). */
export const AgentPackManifest = z.object({
  metadata: MetadataSection.prefault({}),
  languages: z.record(z.string(), LanguageEntry, { error: 'expected a mapping of language codes' }).prefault({}),
  llm: LlmSection.prefault({}),
  rag: z.unknown().optional(),
  memory: MemorySection.prefault({}),
  flows: FlowsSection.prefault({}),
  tools: z.unknown().optional(),
  mcp: z.unknown().optional(),
  imageGeneration: z.unknown().optional(),
  speechToText: z.unknown().optional(),
  vision: z.unknown().optional(),
  integrations: z.unknown().optional(),
})
export type AgentPackManifest = z.output<typeof AgentPackManifest>

/**
 * The resolved configuration: the manifest after placeholders, environment overrides and
 * defaults, plus `llm.apiKey` read from COMPAT_API_KEY. It holds a secret: never log it whole.
 */
export type AgentPackConfig = Omit<AgentPackManifest, 'llm'> & {
  llm: AgentPackManifest['llm'] & { apiKey?: string }
}
