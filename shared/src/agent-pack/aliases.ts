/**
 * Vendor spellings accepted for the spec's neutral names, so packs written for
 * 2060-io/hologram-ai-agent load unchanged (docs/agent-pack.md "Aliases"). The resolved
 * configuration only ever holds the neutral names.
 */

/** Value aliases of `llm.provider` (and LLM_PROVIDER). */
export const LLM_PROVIDER_ALIASES = { openai: 'compat', ollama: 'local' } as const
/** Value aliases of `rag.provider` (and RAG_PROVIDER). */
export const RAG_PROVIDER_ALIASES = { langchain: 'chain' } as const
/**
 * Value aliases of `rag.vectorStore.type` (and VECTOR_STORE): Redis and pgvector are stores the
 * deployment runs itself, which at the edge is the Worker's own storage (`kvstore`); Pinecone is
 * the hosted vector database.
 */
export const VECTOR_STORE_ALIASES = { redis: 'kvstore', pgvector: 'kvstore', pinecone: 'hosted-vector' } as const
/** Value aliases of `memory.backend` (and AGENT_MEMORY_BACKEND). */
export const MEMORY_BACKEND_ALIASES = { redis: 'kvstore' } as const
/** Value aliases of `imageGeneration.providers[].type`. */
export const IMAGE_PROVIDER_ALIASES = {
  'openai-dalle': 'compat-image-legacy',
  dalle: 'compat-image-legacy',
  'openai-gpt-image': 'compat-image-new',
  'gpt-image': 'compat-image-new',
} as const
/** Value aliases of `speechToText.provider.type`. */
export const STT_PROVIDER_ALIASES = { 'openai-whisper': 'compat-stt', 'whisper-compatible': 'stt-selfhosted' } as const
/** Value aliases of `vision.provider.type`. */
export const VISION_PROVIDER_ALIASES = { 'openai-vision': 'compat-vision', 'openai-compatible-vision': 'compat-vision-selfhosted' } as const

/** A key spelled `from` inside the mapping at `parent` is read as `to`. */
export interface KeyAlias {
  parent: readonly string[]
  from: string
  to: string
}

/**
 * Key aliases, applied before environment overrides (so an override of the neutral path wins
 * over a value written under the vendor key). When both spellings are present the neutral one
 * wins and the alias is dropped with a warning.
 */
export const KEY_ALIASES: readonly KeyAlias[] = [
  { parent: ['integrations'], from: 'vsAgent', to: 'agent' },
  { parent: ['integrations'], from: 'postgres', to: 'sqldb' },
  { parent: ['rag'], from: 'pinecone', to: 'vectordb' },
]
