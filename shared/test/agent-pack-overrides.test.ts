/**
 * Step (c) of resolution: every env override of the spec's tables, its format (text, CSV, JSON,
 * JSON-or-CSV list), vendor aliases of the variable names, bad values, and step (d): the spec's
 * defaults. Also the variable list `npm start` hands the worker.
 */
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import {
  ANTHROPIC_API_KEY,
  IMAGE_PROVIDER_ALIASES,
  KEY_ALIASES,
  LLM_PROVIDER_ALIASES,
  MEMORY_BACKEND_ALIASES,
  RAG_PROVIDER_ALIASES,
  STT_PROVIDER_ALIASES,
  VECTOR_STORE_ALIASES,
  VISION_PROVIDER_ALIASES,
  DEFAULT_LLM_MODEL,
  DEFAULT_VISION_PROMPT,
  ENV_OVERRIDES,
  ENV_SETTINGS,
  pickEnv,
  referencedVariables,
  resolveAgentPack,
  type AgentPackConfig,
  type AgentPackSource,
} from '../src/agent-pack/index.ts'

const yaml = (text: string): AgentPackSource => ({ path: 'agent-pack.yaml', text })
const resolve = (source: AgentPackSource | undefined, env: Record<string, string>) => resolveAgentPack(source, env, { notActedOn: [] })
const at = (config: AgentPackConfig, path: readonly string[]) =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config)

/** A value for every override, and what the resolved config holds for it. */
const SAMPLES: Record<string, [string, unknown]> = {
  LLM_PROVIDER: ['anthropic', 'anthropic'],
  COMPAT_MODEL: ['env-model', 'env-model'],
  COMPAT_TEMPERATURE: ['0.9', 0.9],
  COMPAT_MAX_TOKENS: ['2048', 2048],
  COMPAT_BASE_URL: ['http://llm.env/v1', 'http://llm.env/v1'],
  AGENT_PROMPT: ['env persona', 'env persona'],
  RAG_PROVIDER: ['chain', 'chain'],
  RAG_DOCS_PATH: ['./env-docs', './env-docs'],
  RAG_REMOTE_URLS: ['https://a.example/x.md, https://b.example/y.pdf', ['https://a.example/x.md', 'https://b.example/y.pdf']],
  RAG_CHUNK_SIZE: ['500', 500],
  RAG_CHUNK_OVERLAP: ['50', 50],
  VECTOR_STORE: ['hosted-vector', 'hosted-vector'],
  VECTOR_INDEX_NAME: ['env-index', 'env-index'],
  VECTORDB_API_KEY: ['vdb-key', 'vdb-key'],
  AGENT_MEMORY_BACKEND: ['kvstore', 'kvstore'],
  AGENT_MEMORY_WINDOW: ['16', 16],
  REDIS_URL: ['redis://env:6379', 'redis://env:6379'],
  AUTH_REQUIRED: ['true', true],
  CREDENTIAL_DEFINITION_ID: ['did:example:cd', 'did:example:cd'],
  ISSUER_SERVICE_DID: ['did:example:issuer', 'did:example:issuer'],
  USER_IDENTITY_ATTRIBUTE: ['email', 'email'],
  ROLES_ATTRIBUTE: ['roles', 'roles'],
  DEFAULT_ROLE: ['guest', 'guest'],
  ADMIN_USERS: ['alice, bob,,', ['alice', 'bob']],
  ADMIN_AVATARS: ['mj', ['mj']],
  LLM_TOOLS_CONFIG: [
    '[{"name":"w","description":"d","endpoint":"https://w.example/?q={query}"}]',
    [{ name: 'w', description: 'd', endpoint: 'https://w.example/?q={query}', method: 'GET', requiresAuth: false }],
  ],
  STATISTICS_TOOL_ENABLED: ['false', false],
  STATISTICS_API_URL: ['https://stats.example/api', 'https://stats.example/api'],
  STATISTICS_REQUIRE_AUTH: ['yes', true],
  MCP_SERVERS_CONFIG: [
    '[{"name":"gh","transport":"sse","url":"https://mcp.example/sse"}]',
    [{ name: 'gh', transport: 'sse', url: 'https://mcp.example/sse', accessMode: 'admin-controlled' }],
  ],
}

describe('environment overrides', () => {
  it('every override of the spec is in the table, with a sample here', () => {
    expect(ENV_OVERRIDES.map(({ variable }) => variable).sort()).toEqual(Object.keys(SAMPLES).sort())
  })

  it('each one wins over the file, read in its format', () => {
    const pack = yaml(`
llm: { provider: local, model: file, temperature: 0.1, maxTokens: 10, baseUrl: "http://file/v1", agentPrompt: file }
rag: { provider: vectorstore, docsPath: ./file, remoteUrls: ["https://file.example/a.txt"], chunkSize: 1, chunkOverlap: 1, vectorStore: { type: kvstore, indexName: file }, vectordb: { apiKey: file } }
memory: { backend: memory, window: 2, redisUrl: "redis://file:6379" }
flows: { authentication: { required: false, credentialDefinitionId: file, issuerServiceDid: file, userIdentityAttribute: file, rolesAttribute: file, defaultRole: file, adminUsers: [file], adminAvatars: [file] } }
tools: { dynamicConfig: [], bundled: { statisticsFetcher: { enabled: true, endpoint: "https://file.example", requiresAuth: false } } }
mcp: { servers: [{ name: file, transport: stdio, command: file }] }
`)
    const env = Object.fromEntries(Object.entries(SAMPLES).map(([name, [value]]) => [name, value]))
    const { config, warnings } = resolve(pack, env)
    expect(warnings).toEqual([])
    for (const { variable, path } of ENV_OVERRIDES) expect(at(config, path), variable).toEqual(SAMPLES[variable]![1])
  })

  it('RAG_REMOTE_URLS also takes a JSON list', () => {
    expect(resolve(undefined, { RAG_REMOTE_URLS: '["https://a.example/1.txt"]' }).config.rag?.remoteUrls).toEqual([
      'https://a.example/1.txt',
    ])
  })

  it('win over ${VAR} placeholders in the file', () => {
    const { config } = resolve(yaml('llm: { model: "${MODEL_OF_PACK}" }'), {
      MODEL_OF_PACK: 'from-placeholder',
      COMPAT_MODEL: 'from-override',
    })
    expect(config.llm.model).toBe('from-override')
  })

  it("a bad value is a warning naming the variable, and the pack's value is kept", () => {
    const { config, warnings } = resolve(yaml('memory: { window: 4 }\nflows: { authentication: { required: true } }'), {
      AGENT_MEMORY_WINDOW: 'lots',
      AUTH_REQUIRED: 'perhaps',
      COMPAT_MAX_TOKENS: '-3',
    })
    expect(warnings).toEqual([
      'llm.maxTokens: expected a whole number of at least 1, got "-3" (from COMPAT_MAX_TOKENS; ignored)',
      'memory.window: expected a whole number of at least 1, got "lots" (from AGENT_MEMORY_WINDOW; ignored)',
      'flows.authentication.required: expected true or false, got "perhaps" (from AUTH_REQUIRED; ignored)',
    ])
    expect(config.memory.window).toBe(4)
    expect(config.flows.authentication.required).toBe(true)
    expect(config.llm.maxTokens).toBe(512)
  })

  it("JSON that does not parse is a warning naming the variable; the file's value stays", () => {
    const { config, warnings } = resolve(yaml('mcp: { servers: [{ name: a, transport: sse, url: "https://a.example" }] }'), {
      MCP_SERVERS_CONFIG: '[{"name":',
      LLM_TOOLS_CONFIG: 'not json',
    })
    expect(warnings).toEqual([
      expect.stringMatching(/^LLM_TOOLS_CONFIG: expected JSON \(.+\); ignored$/),
      expect.stringMatching(/^MCP_SERVERS_CONFIG: expected JSON \(.+\); ignored$/),
    ])
    expect(config.mcp.servers.map(({ name }) => name)).toEqual(['a'])
  })

  it('a bad entry inside a JSON override is dropped alone, naming the variable; secrets in it are masked', () => {
    const { config, warnings } = resolve(yaml(''), {
      MCP_SERVERS_CONFIG: JSON.stringify([
        { name: 'ok', transport: 'sse', url: 'https://ok.example' },
        { name: 'bad', transport: 'carrier-pigeon', headers: { Authorization: 'Bearer s3cret' } },
        { name: 'nourl', transport: 'streamable-http' },
      ]),
    })
    expect(warnings).toEqual([
      'mcp.servers.1.transport: expected one of stdio, sse, streamable-http, got "carrier-pigeon" (from MCP_SERVERS_CONFIG); mcp.servers.1 dropped',
      'mcp.servers.2.url: expected a URL (required for transport streamable-http), got nothing (from MCP_SERVERS_CONFIG); mcp.servers.2 dropped',
    ])
    expect(config.mcp.servers.map(({ name }) => name)).toEqual(['ok'])
    expect(warnings.join('\n')).not.toContain('s3cret')
  })

  it('a server named twice in MCP_SERVERS_CONFIG keeps its first entry, naming the variable', () => {
    const { config, warnings } = resolve(yaml(''), {
      MCP_SERVERS_CONFIG: JSON.stringify([
        { name: 'hub', transport: 'sse', url: 'https://first.example' },
        { name: 'hub', transport: 'sse', url: 'https://second.example', toolAccess: { default: 'all' } },
      ]),
    })
    expect(warnings).toEqual(['mcp.servers.1.name: duplicate of servers.0, got "hub" (from MCP_SERVERS_CONFIG); mcp.servers.1 dropped'])
    expect(config.mcp.servers).toEqual([{ name: 'hub', transport: 'sse', url: 'https://first.example', accessMode: 'admin-controlled' }])
  })

  it('the vendor names of variables (OPENAI_*, PINECONE_API_KEY, MINIO_*) are read when the neutral one is unset', () => {
    const { config } = resolve(undefined, {
      OPENAI_MODEL: 'm',
      OPENAI_TEMPERATURE: '0.5',
      OPENAI_MAX_TOKENS: '64',
      OPENAI_BASE_URL: 'https://llm.example/v1',
      OPENAI_API_KEY: 'sk-o',
      PINECONE_API_KEY: 'pk',
      MINIO_ENDPOINT: 'minio.local',
      MINIO_PORT: '9100',
      MINIO_USE_SSL: 'true',
      MINIO_BUCKET: 'b',
      MINIO_ACCESS_KEY: 'ak',
      MINIO_SECRET_KEY: 'sk',
    })
    expect(config.llm).toMatchObject({ model: 'm', temperature: 0.5, maxTokens: 64, baseUrl: 'https://llm.example/v1', apiKey: 'sk-o' })
    expect(config.rag?.vectordb?.apiKey).toBe('pk')
    expect(config.objectStore).toEqual({ endpoint: 'minio.local', port: 9100, useSsl: true, bucket: 'b', accessKey: 'ak', secretKey: 'sk' })
    expect(resolve(undefined, { OPENAI_MODEL: 'vendor', COMPAT_MODEL: 'neutral' }).config.llm.model).toBe('neutral')
  })

  it('the object store settings come from OBJSTORE_*, checked like manifest fields', () => {
    const { config, warnings } = resolve(yaml(''), {
      OBJSTORE_ENDPOINT: 's3.local',
      OBJSTORE_PORT: 'ninety',
      OBJSTORE_PUBLIC_URL: 'https://media.example',
    })
    expect(warnings).toEqual(['objectStore.port: expected a whole number from 1 to 65535, got "ninety" (from OBJSTORE_PORT; ignored)'])
    expect(config.objectStore).toEqual({
      endpoint: 's3.local',
      port: 9000,
      useSsl: false,
      publicUrl: 'https://media.example',
      bucket: 'image-gen',
    })
  })
})

describe('built-in defaults (spec "Default" columns)', () => {
  it('fill every section a pack leaves out; rag stays absent until configured', () => {
    const { config } = resolve(yaml('{}'), {})
    expect(config).toEqual({
      metadata: { defaultLanguage: 'en' },
      languages: {},
      llm: { provider: 'compat', model: DEFAULT_LLM_MODEL, temperature: 0.3, maxTokens: 512, baseUrl: undefined, apiKey: undefined },
      memory: { backend: 'memory', window: 8, redisUrl: 'redis://localhost:6379' },
      flows: {
        welcome: {},
        authentication: {
          enabled: false,
          required: false,
          userIdentityAttribute: 'name',
          defaultRole: 'user',
          adminUsers: [],
          adminAvatars: [],
        },
        menu: { items: [] },
      },
      tools: {
        dynamicConfig: [],
        bundled: { statisticsFetcher: { enabled: true, requiresAuth: false, defaultStatClass: 'USER_CONNECTED' } },
      },
      mcp: { servers: [] },
      imageGeneration: { providers: [] },
      speechToText: { requireAuth: false, provider: undefined },
      vision: { requireAuth: false, provider: undefined },
      integrations: {},
      objectStore: { port: 9000, useSsl: false, bucket: 'image-gen' },
    })
  })

  it('fill the fields of configured entries', () => {
    const { config } = resolve(
      yaml(`
rag: {}
mcp: { servers: [{ name: s, transport: stdio, command: run, userConfig: { fields: [{ name: token }] }, toolAccess: { approval: [{ tools: [t], approvers: [a] }] } }] }
imageGeneration: { providers: [{ name: i, type: compat-image-new }] }
vision: { provider: { type: compat-vision } }
`),
      {},
    )
    expect(config.rag).toEqual({
      provider: 'vectorstore',
      docsPath: './docs',
      remoteUrls: [],
      chunkSize: 1000,
      chunkOverlap: 200,
      vectorStore: { type: 'kvstore', indexName: 'agent-ia' },
    })
    expect(config.mcp.servers[0]).toMatchObject({
      accessMode: 'admin-controlled',
      userConfig: { fields: [{ name: 'token', type: 'text', headerName: 'Authorization' }] },
      toolAccess: { approval: [{ timeoutMinutes: 60 }] },
    })
    expect(config.imageGeneration.providers[0]).toMatchObject({
      model: 'gpt-image-1',
      apiKeyEnv: 'COMPAT_API_KEY',
      defaultSize: '1024x1024',
      outputFormat: 'png',
    })
    expect(config.vision.provider).toMatchObject({
      model: DEFAULT_LLM_MODEL,
      maxTokens: 300,
      detail: 'auto',
      prompt: DEFAULT_VISION_PROMPT,
      apiKeyEnv: 'COMPAT_API_KEY',
    })
  })

  it('the local provider gets the documented base URL of a local server', () => {
    expect(resolve(yaml('llm: { provider: local }'), {}).config.llm.baseUrl).toBe('http://localhost:11434/v1')
    expect(resolve(yaml('llm: { provider: local, baseUrl: "http://gpu:8000/v1" }'), {}).config.llm.baseUrl).toBe('http://gpu:8000/v1')
  })
})

describe('variables handed to the worker', () => {
  it("are the whole table, the pack's ${VAR} names and its apiKeyEnv names", () => {
    const pack = yaml(
      'llm: { agentPrompt: "Work for ${COMPANY}" }\nimageGeneration: { providers: [{ name: i, type: gpt-image, apiKeyEnv: IMAGES_KEY }] }',
    )
    const names = referencedVariables(pack)
    for (const { variable, aliases = [] } of [...ENV_OVERRIDES, ...ENV_SETTINGS])
      expect(names).toEqual(expect.arrayContaining([variable, ...aliases]))
    expect(names).toEqual(expect.arrayContaining(['COMPANY', 'IMAGES_KEY', 'ANTHROPIC_API_KEY']))
    expect(pickEnv({ COMPANY: 'Acme', LLM_TOOLS_CONFIG: '[]', HOME: '/root', COMPAT_MODEL: '' }, names)).toEqual({
      COMPANY: 'Acme',
      LLM_TOOLS_CONFIG: '[]',
    })
  })
})

describe('docs/agent-pack.md', async () => {
  const docs = await readFile(new URL('../../docs/agent-pack.md', import.meta.url), 'utf8')

  it('lists every variable with its path, vendor name and whether it is a Worker secret', () => {
    for (const { variable, aliases = [], path, secret } of [...ENV_OVERRIDES, ...ENV_SETTINGS]) {
      const row = docs.split('\n').find((line) => line.startsWith(`| ${variable} |`))
      expect(row, variable).toBeDefined()
      expect(row).toContain(` ${path.join('.')} `)
      for (const alias of aliases) expect(row).toContain(alias)
      expect(row!.includes('**secret**'), variable).toBe(secret)
    }
    expect(docs).toContain(`| ${ANTHROPIC_API_KEY} |`)
  })

  it('documents every alias', () => {
    const aliases = [
      LLM_PROVIDER_ALIASES,
      RAG_PROVIDER_ALIASES,
      VECTOR_STORE_ALIASES,
      MEMORY_BACKEND_ALIASES,
      IMAGE_PROVIDER_ALIASES,
      STT_PROVIDER_ALIASES,
      VISION_PROVIDER_ALIASES,
    ]
    for (const [vendor, neutral] of aliases.flatMap((table) => Object.entries(table))) {
      expect(
        docs.split('\n').some((line) => line.includes(`\`${vendor}\``) && line.includes(`\`${neutral}\``)),
        vendor,
      ).toBe(true)
    }
    for (const { from, to } of KEY_ALIASES) expect(docs).toMatch(new RegExp(`\\| \`${from}\`.*\\| \`${to}\``))
  })
})
