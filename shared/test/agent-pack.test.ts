import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { DEFAULT_LLM_MODEL, resolveAgentPack as resolve, type AgentPackSource } from '../src/agent-pack/index.ts'

const yaml = (text: string): AgentPackSource => ({ path: 'agent-packs/agent-pack.yaml', text })
/** Resolution without the edge's "not acted on" warnings, which agent-pack-edge.test.ts covers. */
const resolveAgentPack = (source: AgentPackSource | undefined, env: Record<string, string>) => resolve(source, env, { notActedOn: [] })

describe('resolveAgentPack', () => {
  it('reads every typed field of a YAML manifest and fills the rest with defaults', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
metadata: { id: demo, displayName: Demo, tags: [a, b] }
languages:
  fr: { greetingMessage: "Salut {userName}", systemPrompt: "Sois bref.", strings: { LOGOUT: Quitter } }
llm: { model: small-model, temperature: 0.7, baseUrl: "http://127.0.0.1:9999/v1", agentPrompt: Persona, verbose: true }
memory: { window: 4 }
flows: { welcome: { enabled: true, templateKey: greetingMessage } }
`),
      {},
    )
    expect(warnings).toEqual([])
    expect(config.metadata).toEqual({ id: 'demo', displayName: 'Demo', tags: ['a', 'b'], defaultLanguage: 'en' })
    expect(config.languages.fr).toEqual({ greetingMessage: 'Salut {userName}', systemPrompt: 'Sois bref.', strings: { LOGOUT: 'Quitter' } })
    expect(config.llm).toEqual({
      provider: 'compat',
      model: 'small-model',
      temperature: 0.7,
      maxTokens: 512,
      baseUrl: 'http://127.0.0.1:9999/v1',
      agentPrompt: 'Persona',
      verbose: true,
      apiKey: undefined,
    })
    expect(config.memory).toEqual({ backend: 'memory', window: 4, redisUrl: 'redis://localhost:6379' })
    expect(config.flows.welcome).toEqual({ enabled: true, templateKey: 'greetingMessage' })
  })

  it('parses a .json manifest as JSON', () => {
    const { config, warnings } = resolveAgentPack({ path: 'packs/agent-pack.json', text: '{"llm":{"maxTokens":"64"}}' }, {})
    expect(warnings).toEqual([])
    expect(config.llm.maxTokens).toBe(64)
  })

  it('applies the built-in defaults when there is no manifest, with a warning', () => {
    const { config, warnings } = resolveAgentPack(undefined, {})
    expect(warnings).toEqual([expect.stringContaining('no agent pack found')])
    expect(config.metadata.defaultLanguage).toBe('en')
    expect(config.llm).toMatchObject({ provider: 'compat', model: DEFAULT_LLM_MODEL, temperature: 0.3, maxTokens: 512 })
    expect(config.memory.window).toBe(8)
    expect(config.languages).toEqual({})
  })

  it('substitutes ${VAR} placeholders in every string, nested sections included', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
languages: { en: { systemPrompt: "You work for \${COMPANY}." } }
llm: { baseUrl: "\${LLM_URL}" }
integrations: { sqldb: { host: "\${DB_HOST}", ports: ["\${DB_PORT}"] } }
`),
      { COMPANY: 'Acme', LLM_URL: 'http://llm.local/v1', DB_HOST: 'db', DB_PORT: '5432' },
    )
    expect(warnings).toEqual([])
    expect(config.languages.en?.systemPrompt).toBe('You work for Acme.')
    expect(config.llm.baseUrl).toBe('http://llm.local/v1')
    expect(config.integrations).toEqual({ sqldb: { host: 'db', ports: ['5432'] } })
  })

  it('warns about unset placeholders: a bare one drops the field to its default, an embedded one stays as text', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
llm: { model: "\${MISSING_MODEL}", agentPrompt: "Hello \${MISSING_NAME}" }
`),
      { MISSING_MODEL: '' },
    )
    expect(config.llm.model).toBe(DEFAULT_LLM_MODEL)
    expect(config.llm.agentPrompt).toBe('Hello ${MISSING_NAME}')
    expect(warnings).toEqual([
      'llm.model: environment variable MISSING_MODEL is not set',
      'llm.agentPrompt: environment variable MISSING_NAME is not set',
    ])
  })

  it('lets the environment overrides win over the file and placeholders, coercing their strings', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
llm: { provider: local, model: "\${M}", temperature: 0.1, maxTokens: 100, baseUrl: "http://file/v1", agentPrompt: file }
memory: { backend: memory, window: 2, redisUrl: "redis://file:6379" }
`),
      {
        M: 'from-placeholder',
        LLM_PROVIDER: 'anthropic',
        COMPAT_MODEL: 'from-env',
        COMPAT_TEMPERATURE: '0.9',
        COMPAT_MAX_TOKENS: '2048',
        COMPAT_BASE_URL: 'http://env/v1',
        AGENT_PROMPT: 'env persona',
        AGENT_MEMORY_BACKEND: 'kvstore',
        AGENT_MEMORY_WINDOW: '16',
        REDIS_URL: 'redis://env:6379',
        COMPAT_API_KEY: 'sk-test',
      },
    )
    expect(warnings).toEqual([])
    expect(config.llm).toEqual({
      provider: 'anthropic',
      model: 'from-env',
      temperature: 0.9,
      maxTokens: 2048,
      baseUrl: 'http://env/v1',
      agentPrompt: 'env persona',
      apiKey: 'sk-test',
    })
    expect(config.memory).toEqual({ backend: 'kvstore', window: 16, redisUrl: 'redis://env:6379' })
  })

  it('ignores overrides set to the empty string', () => {
    const { config } = resolveAgentPack(yaml('llm: { model: file-model }'), { COMPAT_MODEL: '', COMPAT_API_KEY: '' })
    expect(config.llm.model).toBe('file-model')
    expect(config.llm.apiKey).toBeUndefined()
  })

  it('replaces a bad value by its default with a warning naming path and problem, keeping the good fields', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
metadata: { displayName: 42, tags: [ok, 7] }
languages: { en: { greetingMessage: Hi, strings: { GOOD: yes, BAD: [1] } }, de: 3 }
llm: { provider: mystery, temperature: hot, maxTokens: 1.5, baseUrl: not a url, model: kept }
memory: { backend: disk, window: 0 }
flows: { welcome: { enabled: maybe } }
`),
      {},
    )
    expect(warnings).toEqual([
      'metadata.displayName: expected a string, got 42',
      'metadata.tags.1: expected a string, got 7',
      'languages.en.strings.BAD: expected a string, got [1]',
      'languages.de: expected a mapping, got 3',
      'llm.provider: expected one of compat, local, anthropic, got "mystery"',
      'llm.temperature: expected a number from 0 to 1, got "hot"',
      'llm.maxTokens: expected a whole number of at least 1, got 1.5',
      'llm.baseUrl: expected an http(s) URL, got "not a url"',
      'memory.backend: expected one of memory, kvstore, got "disk"',
      'memory.window: expected a whole number of at least 1, got 0',
      'flows.welcome.enabled: expected true or false, got "maybe"',
    ])
    expect(config.metadata).toEqual({ tags: ['ok'], defaultLanguage: 'en' })
    expect(config.languages).toEqual({ en: { greetingMessage: 'Hi', strings: { GOOD: 'yes' } } })
    expect(config.llm).toMatchObject({ provider: 'compat', temperature: 0.3, maxTokens: 512, model: 'kept' })
    expect(config.llm.baseUrl).toBeUndefined()
    expect(config.memory).toMatchObject({ backend: 'memory', window: 8 })
    expect(config.flows.welcome.enabled).toBeUndefined()
  })

  it("names the variable of a bad override and keeps the pack's value", () => {
    const { config, warnings } = resolveAgentPack(yaml('llm: { temperature: 0.5 }'), { COMPAT_TEMPERATURE: 'hot' })
    expect(warnings).toEqual(['llm.temperature: expected a number from 0 to 1, got "hot" (from COMPAT_TEMPERATURE; ignored)'])
    expect(config.llm.temperature).toBe(0.5)
  })

  it('replaces a section that is not a mapping', () => {
    const { config, warnings } = resolveAgentPack(yaml('llm: fast\nmemory: [1]'), { COMPAT_MODEL: 'm' })
    expect(warnings).toEqual(['llm: expected a mapping, got "fast"; replaced to apply COMPAT_MODEL', 'memory: expected a mapping, got [1]'])
    expect(config.llm.model).toBe('m')
    expect(config.memory.window).toBe(8)
  })

  it('continues from the environment when the file cannot be parsed or is not a mapping', () => {
    const broken = resolveAgentPack(yaml('llm: { model: [unclosed'), { COMPAT_MODEL: 'env-model' })
    expect(broken.warnings).toEqual([
      expect.stringMatching(/^agent-packs\/agent-pack\.yaml:1:24: cannot be parsed: .*using environment variables and defaults$/),
    ])
    expect(broken.config.llm.model).toBe('env-model')

    const list = resolveAgentPack(yaml('- a\n- b'), {})
    expect(list.warnings).toEqual([
      'agent-packs/agent-pack.yaml: expected a mapping at the top level; using environment variables and defaults',
    ])

    const json = resolveAgentPack({ path: 'agent-pack.json', text: '{"llm":' }, {})
    expect(json.warnings).toEqual([
      'agent-pack.json:1:8: cannot be parsed: Unexpected end of JSON input; using environment variables and defaults',
    ])
  })

  it('treats an empty file as an empty manifest', () => {
    expect(resolveAgentPack(yaml(''), {}).warnings).toEqual([])
  })

  it('folds the deprecated welcomeMessage into greetingMessage, which wins when both are set', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
languages:
  en: { welcomeMessage: Old }
  es: { welcomeMessage: Viejo, greetingMessage: Nuevo }
`),
      {},
    )
    expect(config.languages.en?.greetingMessage).toBe('Old')
    expect(config.languages.es?.greetingMessage).toBe('Nuevo')
    expect(config.languages.en).not.toHaveProperty('welcomeMessage')
    expect(warnings).toEqual([
      'languages.en.welcomeMessage: deprecated, use greetingMessage',
      'languages.es.welcomeMessage: deprecated, use greetingMessage',
    ])
  })

  it('coerces boolean/string words', () => {
    for (const [word, value] of [
      ['yes', true],
      ['OFF', false],
      ['1', true],
      ['false', false],
    ] as const) {
      expect(resolveAgentPack(yaml(`llm: { verbose: "${word}" }`), {}).config.llm.verbose).toBe(value)
    }
  })

  it('types the sections the edge does not act on yet, filling their defaults', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
rag: { provider: chain, chunkSize: "500" }
mcp: { servers: [{ name: s, transport: sse, url: "http://x.example/sse" }] }
flows: { menu: { items: [{ id: a, action: logout }] } }
`),
      {},
    )
    expect(warnings).toEqual([])
    expect(config.rag).toEqual({
      provider: 'chain',
      docsPath: './docs',
      remoteUrls: [],
      chunkSize: 500,
      chunkOverlap: 200,
      vectorStore: { type: 'kvstore', indexName: 'agent-ia' },
    })
    expect(config.mcp).toEqual({ servers: [{ name: 's', transport: 'sse', url: 'http://x.example/sse', accessMode: 'admin-controlled' }] })
    expect(config.flows.menu).toEqual({ items: [{ id: 'a', action: 'logout' }] })
  })

  it('resolves the default pack (agent-packs/agent-pack.yaml) without warnings, at the edge too', async () => {
    const path = new URL('../../agent-packs/agent-pack.yaml', import.meta.url)
    const { config, warnings } = resolve({ path: path.pathname, text: await readFile(path, 'utf8') }, {})
    expect(warnings).toEqual([])
    expect(config.languages.en?.greetingMessage).toContain('{userName}')
    expect(config.languages.en?.systemPrompt).toBeTruthy()
    expect(config.memory.window).toBe(8)
  })
})
