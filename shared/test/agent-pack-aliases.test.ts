/**
 * Packs written for 2060-io/hologram-ai-agent load unchanged: the vendor spellings of its packs
 * and loader (fixtures/agent-packs/vendor-spellings, our own pack in that style) resolve to the
 * spec's neutral names, with warnings only for unset placeholders and the deprecated key.
 */
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { resolveAgentPack, type AgentPackSource } from '../src/agent-pack/index.ts'

const fixture = async (path: string): Promise<AgentPackSource> => {
  const url = new URL(`fixtures/agent-packs/${path}`, import.meta.url)
  return { path: url.pathname, text: await readFile(url, 'utf8') }
}
const vendor = await fixture('vendor-spellings/agent-pack.yaml')
const resolve = (env: Record<string, string> = {}) => resolveAgentPack(vendor, env, { notActedOn: [] })

describe('vendor spellings', () => {
  it('resolve with no error: only unset placeholders and the deprecated welcomeMessage are reported', () => {
    const { warnings } = resolve()
    expect(warnings.filter((warning) => !/: environment variable [A-Z_]+ is not set$/.test(warning))).toEqual([
      'languages.es.welcomeMessage: deprecated, use greetingMessage',
    ])
  })

  it('map provider kinds, stores and media types to the neutral names', () => {
    const { config } = resolve()
    expect(config.llm.provider).toBe('compat')
    expect(config.llm.reasoningEffort).toBe('low')
    expect(config.rag).toMatchObject({ provider: 'chain', vectorStore: { type: 'kvstore', indexName: 'library' } })
    expect(config.memory).toMatchObject({ backend: 'kvstore', window: 6 })
    expect(config.imageGeneration.providers.map(({ name, type, model }) => ({ name, type, model }))).toEqual([
      { name: 'posters', type: 'compat-image-legacy', model: 'dall-e-3' },
      { name: 'covers', type: 'compat-image-new', model: 'gpt-image-1' },
      { name: 'thumbnails', type: 'compat-image-new', model: 'gpt-image-1' },
    ])
    expect(config.speechToText.provider).toMatchObject({ type: 'compat-stt', model: 'whisper-1' })
    expect(config.vision).toMatchObject({ requireAuth: true, provider: { type: 'compat-vision', detail: 'low', maxTokens: 300 } })
  })

  it('read the vendor keys (vsAgent, postgres, pinecone) as agent, sqldb and vectordb', () => {
    const { config } = resolve({ LIBRARY_VECTOR_KEY: 'vk', LIBRARY_AGENT_URL: 'http://agent.local:3000', LIBRARY_DB_PASSWORD: 'pw' })
    expect(config.integrations).toEqual({
      agent: { adminUrl: 'http://agent.local:3000', stats: {} },
      sqldb: { host: 'db.library.example', user: 'desk', password: 'pw', dbName: 'desk' },
    })
    expect(config.rag?.vectordb).toEqual({ apiKey: 'vk' })
  })

  it('keep the legacy forms: adminAvatars, toolAccess default/public, a JSON-string dynamicConfig, string booleans', () => {
    const { config } = resolve({ LIBRARY_STATS_AUTH: 'true' })
    expect(config.flows.authentication).toMatchObject({ enabled: true, adminAvatars: ['head-librarian'], adminUsers: [] })
    expect(config.mcp.servers[0]).toMatchObject({
      name: 'loans',
      reconnect: true,
      accessMode: 'user-controlled',
      toolAccess: { default: 'admin', public: ['search_loans'] },
    })
    expect(config.tools.dynamicConfig).toEqual([
      {
        name: 'catalogue',
        description: 'Search the catalogue',
        endpoint: 'https://catalogue.example/search?q={query}',
        method: 'GET',
        requiresAuth: true,
      },
    ])
    expect(config.tools.bundled.statisticsFetcher).toEqual({
      enabled: true,
      requiresAuth: true,
      defaultStatClass: 'LOANS',
      defaultStatEnums: [{ index: 0, label: 'all', value: 'all', description: 'every branch' }],
    })
    expect(config.flows.welcome).toEqual({ enabled: true, sendOnProfile: true, templateKey: 'greetingMessage' })
    expect(config.languages.es?.greetingMessage).toBe('Hola {userName}, soy el mostrador de la biblioteca.')
  })

  it('read the key of an image provider from its apiKeyEnv, else COMPAT_API_KEY or its OPENAI_API_KEY alias', () => {
    const { config } = resolve({ OPENAI_API_KEY: 'sk-openai', LIBRARY_IMAGE_KEY: 'sk-images' })
    expect(config.llm.apiKey).toBe('sk-openai')
    expect(config.imageGeneration.providers.map((provider) => provider.apiKey)).toEqual(['sk-openai', 'sk-images', 'sk-openai'])
    expect(config.speechToText.provider?.apiKey).toBe('sk-openai')
  })

  it('accept the vendor values from the environment too (LLM_PROVIDER=openai, VECTOR_STORE=pinecone, ...)', () => {
    const { config, warnings } = resolveAgentPack(
      undefined,
      {
        LLM_PROVIDER: 'ollama',
        VECTOR_STORE: 'pinecone',
        RAG_PROVIDER: 'langchain',
        AGENT_MEMORY_BACKEND: 'redis',
        PINECONE_API_KEY: 'pk',
      },
      { notActedOn: [] },
    )
    expect(warnings).toEqual([expect.stringContaining('no agent pack found')])
    expect(config.llm).toMatchObject({ provider: 'local', baseUrl: 'http://localhost:11434/v1' })
    expect(config.rag).toMatchObject({ provider: 'chain', vectorStore: { type: 'hosted-vector' }, vectordb: { apiKey: 'pk' } })
    expect(config.memory.backend).toBe('kvstore')
  })

  it('prefer the neutral key when a pack sets both spellings', () => {
    const { config, warnings } = resolveAgentPack(
      { path: 'agent-pack.yaml', text: 'integrations: { vsAgent: { a: 1 }, agent: { b: 2 } }' },
      {},
      { notActedOn: [] },
    )
    expect(config.integrations.agent).toEqual({ b: 2 })
    expect(warnings).toEqual(['integrations.vsAgent: alias of agent, which is also set; ignored'])
  })
})

describe('a pack in the neutral spelling (JSON)', () => {
  it('resolves every section it sets', async () => {
    const { config, warnings } = resolveAgentPack(
      await fixture('neutral/agent-pack.json'),
      { CLINIC_RECORDS_TOKEN: 'tok', CLINIC_VECTOR_KEY: 'vk', ANTHROPIC_API_KEY: 'sk-ant' },
      { notActedOn: [] },
    )
    expect(warnings).toEqual([])
    expect(config.llm).toMatchObject({ provider: 'anthropic', model: 'clinic-model', maxTokens: 1024, verbose: true, apiKey: 'sk-ant' })
    expect(config.flows.authentication).toEqual({
      enabled: true,
      required: true,
      credentialDefinitionId: 'did:example:issuer/credDef/staff',
      userIdentityAttribute: 'email',
      rolesAttribute: 'roles',
      defaultRole: 'patient',
      adminUsers: ['chief@clinic.example'],
      adminAvatars: [],
    })
    expect(config.flows.menu.items).toEqual([
      {
        id: 'approvals',
        label: 'Approvals',
        action: 'pending-approvals',
        visibleWhen: 'hasPendingApprovals',
        badge: 'pendingApprovalCount',
      },
    ])
    expect(config.mcp.servers).toEqual([
      {
        name: 'records',
        transport: 'stdio',
        command: 'records-mcp',
        args: ['--read-only', '--region', 'eu'],
        env: { RECORDS_TOKEN: 'tok' },
        accessMode: 'admin-controlled',
        toolAccess: {
          default: 'none',
          roles: { doctor: ['read_record', 'write_record'], nurse: ['read_record'] },
          approval: [{ tools: ['write_record'], approvers: ['chief'], timeoutMinutes: 60 }],
        },
      },
    ])
    expect(config.speechToText.provider).toMatchObject({
      type: 'stt-selfhosted',
      baseUrl: 'http://stt.clinic.internal:9000/v1',
      language: 'fr',
    })
    expect(config.vision.provider).toMatchObject({ type: 'compat-vision-selfhosted', maxTokens: 200, detail: 'auto' })
    expect(config.rag).toMatchObject({ vectorStore: { type: 'hosted-vector', indexName: 'clinic' }, vectordb: { apiKey: 'vk' } })
    expect(config.integrations).toEqual({
      agent: { adminUrl: 'http://agent.clinic.internal:3000' },
      billing: { url: 'https://billing.clinic.example' },
    })
  })

  it('never sends an Anthropic key to another provider', () => {
    const { config } = resolveAgentPack(undefined, { ANTHROPIC_API_KEY: 'sk-ant' }, { notActedOn: [] })
    expect(config.llm).toMatchObject({ provider: 'compat', apiKey: undefined })
  })
})
