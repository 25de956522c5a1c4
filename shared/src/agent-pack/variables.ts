/**
 * The environment variables an agent pack reads: the spec's "Env override" columns (step (c) of
 * resolution) and the environment-only settings (keys, object store). One table, used by the
 * resolver, by `npm start` to decide what to hand the worker, and by docs/agent-pack.md.
 */

/**
 * How a variable's text becomes a value: `text` as is (the schema coerces numbers and booleans),
 * `csv` split on commas, `json` parsed as JSON, `list` a JSON list or else CSV.
 */
export type VariableFormat = 'text' | 'csv' | 'json' | 'list'

/** One variable: where its value goes and how it is read. */
export interface EnvVariable {
  variable: string
  /** Vendor names read when `variable` is unset (hologram-ai-agent's OPENAI_*, MINIO_*, ...). */
  aliases?: readonly string[]
  /** Path of the value in the resolved configuration. */
  path: readonly string[]
  format: VariableFormat
  /** Deploy as a Worker secret (`wrangler secret put`), not a plain var. */
  secret: boolean
}

const text = (variable: string, path: string, options: Partial<Omit<EnvVariable, 'variable' | 'path'>> = {}): EnvVariable => ({
  variable,
  path: path.split('.'),
  format: 'text',
  secret: false,
  ...options,
})

/** The spec's env overrides, in the order of its tables: each replaces a manifest value. */
export const ENV_OVERRIDES: readonly EnvVariable[] = [
  text('LLM_PROVIDER', 'llm.provider'),
  text('COMPAT_MODEL', 'llm.model', { aliases: ['OPENAI_MODEL'] }),
  text('COMPAT_TEMPERATURE', 'llm.temperature', { aliases: ['OPENAI_TEMPERATURE'] }),
  text('COMPAT_MAX_TOKENS', 'llm.maxTokens', { aliases: ['OPENAI_MAX_TOKENS'] }),
  text('COMPAT_BASE_URL', 'llm.baseUrl', { aliases: ['OPENAI_BASE_URL'] }),
  text('AGENT_PROMPT', 'llm.agentPrompt'),
  text('RAG_PROVIDER', 'rag.provider'),
  text('RAG_DOCS_PATH', 'rag.docsPath'),
  text('RAG_REMOTE_URLS', 'rag.remoteUrls', { format: 'list' }),
  text('RAG_CHUNK_SIZE', 'rag.chunkSize'),
  text('RAG_CHUNK_OVERLAP', 'rag.chunkOverlap'),
  text('VECTOR_STORE', 'rag.vectorStore.type'),
  text('VECTOR_INDEX_NAME', 'rag.vectorStore.indexName'),
  text('VECTORDB_API_KEY', 'rag.vectordb.apiKey', { aliases: ['PINECONE_API_KEY'], secret: true }),
  text('AGENT_MEMORY_BACKEND', 'memory.backend'),
  text('AGENT_MEMORY_WINDOW', 'memory.window'),
  text('REDIS_URL', 'memory.redisUrl', { secret: true }),
  text('AUTH_REQUIRED', 'flows.authentication.required'),
  text('CREDENTIAL_DEFINITION_ID', 'flows.authentication.credentialDefinitionId'),
  text('ISSUER_SERVICE_DID', 'flows.authentication.issuerServiceDid'),
  text('USER_IDENTITY_ATTRIBUTE', 'flows.authentication.userIdentityAttribute'),
  text('ROLES_ATTRIBUTE', 'flows.authentication.rolesAttribute'),
  text('DEFAULT_ROLE', 'flows.authentication.defaultRole'),
  text('ADMIN_USERS', 'flows.authentication.adminUsers', { format: 'csv' }),
  text('ADMIN_AVATARS', 'flows.authentication.adminAvatars', { format: 'csv' }),
  text('LLM_TOOLS_CONFIG', 'tools.dynamicConfig', { format: 'json', secret: true }),
  text('STATISTICS_TOOL_ENABLED', 'tools.bundled.statisticsFetcher.enabled'),
  text('STATISTICS_API_URL', 'tools.bundled.statisticsFetcher.endpoint'),
  text('STATISTICS_REQUIRE_AUTH', 'tools.bundled.statisticsFetcher.requiresAuth'),
  text('MCP_SERVERS_CONFIG', 'mcp.servers', { format: 'json', secret: true }),
]

/**
 * Settings read from the environment only (never from the manifest): the model's key and the
 * object store (spec "llm" and "imageGeneration", "Object store settings").
 */
export const ENV_SETTINGS: readonly EnvVariable[] = [
  text('COMPAT_API_KEY', 'llm.apiKey', { aliases: ['OPENAI_API_KEY'], secret: true }),
  text('OBJSTORE_ENDPOINT', 'objectStore.endpoint', { aliases: ['MINIO_ENDPOINT'] }),
  text('OBJSTORE_PORT', 'objectStore.port', { aliases: ['MINIO_PORT'] }),
  text('OBJSTORE_ACCESS_KEY', 'objectStore.accessKey', { aliases: ['MINIO_ACCESS_KEY'], secret: true }),
  text('OBJSTORE_SECRET_KEY', 'objectStore.secretKey', { aliases: ['MINIO_SECRET_KEY'], secret: true }),
  text('OBJSTORE_USE_SSL', 'objectStore.useSsl', { aliases: ['MINIO_USE_SSL'] }),
  text('OBJSTORE_PUBLIC_URL', 'objectStore.publicUrl', { aliases: ['MINIO_PUBLIC_URL'] }),
  text('OBJSTORE_BUCKET', 'objectStore.bucket', { aliases: ['MINIO_BUCKET'] }),
]

/**
 * Key of the `anthropic` provider when COMPAT_API_KEY (and OPENAI_API_KEY) is unset, as
 * hologram-ai-agent reads it. Only used with `llm.provider: anthropic`, so a key is never sent
 * to another vendor's endpoint.
 */
export const ANTHROPIC_API_KEY = 'ANTHROPIC_API_KEY'

/** Where the manifest itself is found (spec rule 1); read by the build step, not the resolver. */
export const AGENT_PACK_PATH = 'AGENT_PACK_PATH'

/**
 * Every variable name the resolver may read besides `${VAR}` placeholders and `apiKeyEnv`
 * names: overrides, settings and their aliases.
 */
export function knownVariableNames(): string[] {
  return [...ENV_OVERRIDES, ...ENV_SETTINGS].flatMap(({ variable, aliases = [] }) => [variable, ...aliases]).concat(ANTHROPIC_API_KEY)
}

/** The names of the variables to deploy as Worker secrets (with their aliases). */
export function secretVariableNames(): string[] {
  return [...ENV_OVERRIDES, ...ENV_SETTINGS]
    .filter(({ secret }) => secret)
    .flatMap(({ variable, aliases = [] }) => [variable, ...aliases])
    .concat(ANTHROPIC_API_KEY)
}
