/**
 * Built-in defaults of the agent pack (spec tables "Default" column and "Limits"); step (d) of
 * resolution fills whatever is still missing with these.
 */

/** Language used when `metadata.defaultLanguage` is not set. */
export const DEFAULT_LANGUAGE = 'en'

/** Provider kinds the spec names; `compat` covers any chat-completions-compatible API. */
export const LLM_PROVIDERS = ['compat', 'local', 'anthropic'] as const
export const DEFAULT_LLM_PROVIDER = 'compat'

/**
 * The spec's `<DEFAULT_LLM_MODEL>`: a small, inexpensive chat model that every major
 * chat-completions-compatible endpoint serves or aliases. Set COMPAT_MODEL or `llm.model` for
 * anything else.
 */
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini'
export const DEFAULT_LLM_TEMPERATURE = 0.3
export const DEFAULT_LLM_MAX_TOKENS = 512

/** `memory` keeps turns with the conversation; `kvstore` in a persistent key-value store. */
export const MEMORY_BACKENDS = ['memory', 'kvstore'] as const
export const DEFAULT_MEMORY_BACKEND = 'memory'
/** Turns (user and assistant messages) of history given to the model. */
export const DEFAULT_MEMORY_WINDOW = 8
export const DEFAULT_REDIS_URL = 'redis://localhost:6379'
