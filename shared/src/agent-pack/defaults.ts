/**
 * Built-in defaults of the agent pack (the spec's "Default" columns and "Limits"); step (d) of
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
/**
 * Base URL of the `local` provider when `llm.baseUrl` is not set: the OpenAI-compatible API of a
 * model server on this host (Ollama's port; llama.cpp and vLLM serve the same path).
 */
export const DEFAULT_LOCAL_BASE_URL = 'http://localhost:11434/v1'
/** Reasoning effort of reasoning-capable models (an extension read from hologram-ai-agent packs). */
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const

/** `rag.provider`: the built-in vector store pipeline, or a chain-based one. */
export const RAG_PROVIDERS = ['vectorstore', 'chain'] as const
export const DEFAULT_RAG_PROVIDER = 'vectorstore'
export const DEFAULT_RAG_DOCS_PATH = './docs'
export const DEFAULT_RAG_CHUNK_SIZE = 1000
export const DEFAULT_RAG_CHUNK_OVERLAP = 200
/** `rag.vectorStore.type`: a store of our own (`kvstore`) or the hosted vector database. */
export const VECTOR_STORE_TYPES = ['kvstore', 'hosted-vector'] as const
export const DEFAULT_VECTOR_STORE_TYPE = 'kvstore'
export const DEFAULT_VECTOR_INDEX_NAME = 'agent-ia'

/** `memory` keeps turns with the conversation; `kvstore` in a persistent key-value store. */
export const MEMORY_BACKENDS = ['memory', 'kvstore'] as const
export const DEFAULT_MEMORY_BACKEND = 'memory'
/** Turns (user and assistant messages) of history given to the model. */
export const DEFAULT_MEMORY_WINDOW = 8
export const DEFAULT_REDIS_URL = 'redis://localhost:6379'

/** `flows.authentication` defaults. */
export const DEFAULT_USER_IDENTITY_ATTRIBUTE = 'name'
export const DEFAULT_ROLE = 'user'

/** `flows.menu.items[].visibleWhen`. */
export const MENU_VISIBILITY = [
  'always',
  'authenticated',
  'unauthenticated',
  'configuring',
  'notConfiguring',
  'hasApprovalRequests',
  'hasPendingApprovals',
] as const
/** `flows.menu.items[].badge`. */
export const MENU_BADGES = ['approvalRequestCount', 'pendingApprovalCount'] as const

/** `tools.dynamicConfig[].method`. */
export const HTTP_TOOL_METHODS = ['GET', 'POST'] as const
export const DEFAULT_HTTP_TOOL_METHOD = 'GET'
/** `tools.bundled.statisticsFetcher` defaults. */
export const DEFAULT_STATISTICS_ENABLED = true
export const DEFAULT_STATISTICS_REQUIRES_AUTH = false
export const DEFAULT_STAT_CLASS = 'USER_CONNECTED'

/** `mcp.servers[]` enums and defaults. */
export const MCP_TRANSPORTS = ['stdio', 'sse', 'streamable-http'] as const
export const MCP_ACCESS_MODES = ['admin-controlled', 'user-controlled'] as const
export const DEFAULT_MCP_ACCESS_MODE = 'admin-controlled'
export const MCP_USER_FIELD_TYPES = ['secret', 'text'] as const
export const DEFAULT_MCP_USER_FIELD_TYPE = 'text'
export const DEFAULT_MCP_HEADER_NAME = 'Authorization'
/** `toolAccess.default`: legacy values (`public`, `admin`) and role-based ones (`none`, `all`). */
export const TOOL_ACCESS_DEFAULTS = ['public', 'admin', 'none', 'all'] as const
export const DEFAULT_APPROVAL_TIMEOUT_MINUTES = 60

/** Variable holding a media provider's key when its `apiKeyEnv` is not set. */
export const DEFAULT_API_KEY_ENV = 'COMPAT_API_KEY'

/** `imageGeneration.providers[]`. */
export const IMAGE_PROVIDER_TYPES = ['compat-image-legacy', 'compat-image-new'] as const
/** The spec's "depends on type" default model of each image provider type. */
export const DEFAULT_IMAGE_MODELS: Readonly<Record<(typeof IMAGE_PROVIDER_TYPES)[number], string>> = {
  'compat-image-legacy': 'dall-e-3',
  'compat-image-new': 'gpt-image-1',
}
export const DEFAULT_IMAGE_SIZE = '1024x1024'
export const IMAGE_QUALITIES = ['low', 'medium', 'high', 'auto'] as const
export const IMAGE_OUTPUT_FORMATS = ['png', 'jpeg', 'webp'] as const
export const DEFAULT_IMAGE_OUTPUT_FORMAT = 'png'
export const IMAGE_BACKGROUNDS = ['transparent', 'opaque', 'auto'] as const

/** `speechToText.provider`. */
export const STT_PROVIDER_TYPES = ['compat-stt', 'stt-selfhosted'] as const
/** The spec's `<DEFAULT_STT_MODEL>`. */
export const DEFAULT_STT_MODEL = 'whisper-1'

/** `vision.provider`. */
export const VISION_PROVIDER_TYPES = ['compat-vision', 'compat-vision-selfhosted'] as const
export const DEFAULT_VISION_MAX_TOKENS = 300
export const VISION_DETAILS = ['auto', 'low', 'high'] as const
export const DEFAULT_VISION_DETAIL = 'auto'
/** The spec's "built-in concise-description prompt" of `vision.provider.prompt`. */
export const DEFAULT_VISION_PROMPT = 'Describe this image concisely and factually in a few sentences, including any visible text.'

/** Object store (environment only, spec "imageGeneration" "Object store settings"). */
export const DEFAULT_OBJSTORE_PORT = 9000
export const DEFAULT_OBJSTORE_USE_SSL = false
export const DEFAULT_OBJSTORE_BUCKET = 'image-gen'
