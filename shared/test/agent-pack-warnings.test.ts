/**
 * What a pack author is told: unknown keys and wrong types by path, required fields, the sections
 * the edge does not act on yet, and secrets masked in what is shown.
 */
import { readFile } from 'node:fs/promises'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import {
  AGENT_PACK_SCHEMA_FILE,
  MASK,
  NOT_ACTED_ON_AT_THE_EDGE,
  agentPackJsonSchema,
  maskSecrets,
  resolveAgentPack,
  type AgentPackSource,
} from '../src/agent-pack/index.ts'

const yaml = (text: string): AgentPackSource => ({ path: 'agent-pack.yaml', text })
const warningsOf = (text: string, env: Record<string, string> = {}) => resolveAgentPack(yaml(text), env, { notActedOn: [] }).warnings

describe('validation warnings', () => {
  it('name every unknown key by its path, at any depth, and drop it', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
llm: { temprature: 0.5, model: m }
colour: blue
flows: { welcome: { enable: true }, onboarding: {} }
mcp: { servers: [{ name: s, transport: sse, url: "https://s.example", headerz: {} }] }
tools: { bundled: { statisticsFetcher: { endpoint: "https://stats.example" }, weather: {} } }
`),
      {},
      { notActedOn: [] },
    )
    expect(warnings).toEqual([
      'llm.temprature: unknown key',
      'flows.welcome.enable: unknown key',
      'flows.onboarding: unknown key',
      'tools.bundled.weather: unknown key',
      'mcp.servers.0.headerz: unknown key',
      'colour: unknown key',
    ])
    expect(config.llm).toMatchObject({ model: 'm', temperature: 0.3 })
    expect(config.mcp.servers).toHaveLength(1)
  })

  it('keep integrations free-form: any key, any structure', () => {
    expect(warningsOf('integrations: { crm: { url: "https://crm.example", retries: 3 }, agent: [1, 2] }')).toEqual([])
  })

  it('name wrong types of every section by path', () => {
    expect(
      warningsOf(`
rag: { chunkSize: big, remoteUrls: ["ftp://x.example/a"], vectorStore: { type: mongo } }
flows: { authentication: { adminUsers: alice }, menu: { items: [{ id: m, visibleWhen: sometimes, badge: 3 }] } }
tools: { dynamicConfig: [{ name: t, description: d, endpoint: "https://t.example", method: DELETE }] }
mcp: { servers: [{ name: s, transport: stdio, command: c, accessMode: everyone, toolAccess: { default: maybe } }] }
imageGeneration: { providers: [{ name: i, type: compat-image-new, quality: ultra }] }
speechToText: { requireAuth: sometimes }
vision: { provider: { type: compat-vision, detail: extreme } }
`),
    ).toEqual([
      'rag.remoteUrls.0: expected an http(s) URL, got "ftp://x.example/a"',
      'rag.chunkSize: expected a whole number of at least 1, got "big"',
      'rag.vectorStore.type: expected one of kvstore, hosted-vector, got "mongo"',
      'flows.authentication.adminUsers: expected a list of strings, got "alice"',
      'flows.menu.items.0.visibleWhen: expected one of always, authenticated, unauthenticated, configuring, notConfiguring, hasApprovalRequests, hasPendingApprovals, got "sometimes"',
      'flows.menu.items.0.badge: expected one of approvalRequestCount, pendingApprovalCount, got 3',
      'tools.dynamicConfig.0.method: expected one of GET, POST, got "DELETE"',
      'mcp.servers.0.accessMode: expected one of admin-controlled, user-controlled, got "everyone"',
      'mcp.servers.0.toolAccess.default: expected one of public, admin, none, all, got "maybe"',
      'imageGeneration.providers.0.quality: expected one of low, medium, high, auto, got "ultra"',
      'speechToText.requireAuth: expected true or false, got "sometimes"',
      'vision.provider.detail: expected one of auto, low, high, got "extreme"',
    ])
  })

  it('drop an entry that lacks a required field, saying which (its position as written)', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
mcp: { servers: [{ transport: sse, url: "https://a.example" }, { name: b, transport: stdio }] }
speechToText: { provider: { type: stt-selfhosted } }
tools: { dynamicConfig: '[{"name":"t"}]' }
`),
      {},
      { notActedOn: [] },
    )
    expect(warnings).toEqual([
      'tools.dynamicConfig.0.description: expected a string, got nothing; tools.dynamicConfig.0 dropped',
      'mcp.servers.0.name: expected a string, got nothing; mcp.servers.0 dropped',
      'mcp.servers.1.command: expected a command (required for transport stdio), got nothing; mcp.servers.1 dropped',
      'speechToText.provider.baseUrl: expected a URL (required for type stt-selfhosted), got nothing; speechToText.provider dropped',
    ])
    expect(config.mcp.servers).toEqual([])
    expect(config.speechToText.provider).toBeUndefined()
    expect(config.tools.dynamicConfig).toEqual([])
  })

  it('report a dynamicConfig string that is not JSON', () => {
    expect(warningsOf("tools: { dynamicConfig: '[{oops' }")).toEqual([
      expect.stringMatching(/^tools\.dynamicConfig: expected JSON \(.+\)$/),
    ])
  })

  it('never show a secret in a warning', () => {
    const warnings = warningsOf('rag: { vectordb: { apiKey: [hunter2] } }\nintegrations: { sqldb: { password: hunter2 } }', {
      REDIS_URL: 'redis://u:hunter2@r:6379',
    })
    expect(warnings.join('\n')).not.toContain('hunter2')
  })
})

describe('unique ids and names, non-empty values (spec "Unique item id", "Unique server name")', () => {
  it('drop a menu item with an empty or repeated id, and an empty label or labelKey (the label falls back)', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
flows:
  menu:
    items:
      - { id: a, label: A }
      - { id: b, labelKey: "", label: "" }
      - { id: a, label: Again }
      - { id: "", label: Empty }
      - { id: a, label: Third }
`),
      {},
      { notActedOn: [] },
    )
    expect(warnings).toEqual([
      'flows.menu.items.1.labelKey: expected a non-empty string, got ""',
      'flows.menu.items.1.label: expected a non-empty string, got ""',
      'flows.menu.items.3.id: expected a non-empty string, got ""; flows.menu.items.3 dropped',
      'flows.menu.items.2.id: duplicate of items.0, got "a"; flows.menu.items.2 dropped',
      'flows.menu.items.4.id: duplicate of items.0, got "a"; flows.menu.items.4 dropped',
    ])
    expect(config.flows.menu.items).toEqual([{ id: 'a', label: 'A' }, { id: 'b' }])
  })

  it('drop a repeated MCP server name and a repeated or empty userConfig field name; an approval policy without approvers is for admins only', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
mcp:
  servers:
    - name: wiki
      transport: sse
      url: "https://a.example"
      toolAccess:
        roles: { user: [search, delete, purge] }
        approval:
          - { tools: [delete], approvers: [] }
          - { tools: [purge], approvers: [admin] }
          - { tools: [erase] }
    - { name: wiki, transport: sse, url: "https://b.example", toolAccess: { default: all } }
    - name: vault
      transport: sse
      url: "https://v.example"
      accessMode: user-controlled
      userConfig: { fields: [{ name: token }, { name: token, type: secret }, { name: "" }] }
    - { name: "", transport: sse, url: "https://c.example" }
`),
      {},
      { notActedOn: [] },
    )
    expect(warnings).toEqual([
      'mcp.servers.2.userConfig.fields.2.name: expected a non-empty string, got ""; mcp.servers.2.userConfig.fields.2 dropped',
      'mcp.servers.2.userConfig.fields.1.name: duplicate of fields.0, got "token"; mcp.servers.2.userConfig.fields.1 dropped',
      'mcp.servers.3.name: expected a non-empty string, got ""; mcp.servers.3 dropped',
      'mcp.servers.1.name: duplicate of servers.0, got "wiki"; mcp.servers.1 dropped',
      "mcp server 'wiki': toolAccess.approval.0.approvers names no role; only admins may approve delete",
      "mcp server 'wiki': toolAccess.approval.2.approvers names no role; only admins may approve erase",
    ])
    expect(config.mcp.servers.map(({ name, url }) => ({ name, url }))).toEqual([
      { name: 'wiki', url: 'https://a.example' },
      { name: 'vault', url: 'https://v.example' },
    ])
    expect(config.mcp.servers[0]?.toolAccess).toEqual({
      roles: { user: ['search', 'delete', 'purge'] },
      approval: [
        { tools: ['delete'], approvers: [], timeoutMinutes: 60 },
        { tools: ['purge'], approvers: ['admin'], timeoutMinutes: 60 },
        { tools: ['erase'], approvers: [], timeoutMinutes: 60 },
      ],
    })
    expect(config.mcp.servers[1]?.userConfig?.fields).toEqual([{ name: 'token', type: 'text', headerName: 'Authorization' }])
  })

  it('drop a repeated tool name and image provider name, keeping the first (positions as written)', () => {
    const { config, warnings } = resolveAgentPack(
      yaml(`
tools:
  dynamicConfig:
    - { name: x, endpoint: "https://t.example/0" }
    - { name: t, description: first, endpoint: "https://t.example/1" }
    - { name: t, description: second, endpoint: "https://t.example/2" }
imageGeneration: { providers: [{ name: i, type: compat-image-new }, { name: i, type: compat-image-legacy }] }
`),
      {},
      { notActedOn: [] },
    )
    expect(warnings).toEqual([
      'tools.dynamicConfig.0.description: expected a string, got nothing; tools.dynamicConfig.0 dropped',
      'tools.dynamicConfig.2.name: duplicate of dynamicConfig.1, got "t"; tools.dynamicConfig.2 dropped',
      'imageGeneration.providers.1.name: duplicate of providers.0, got "i"; imageGeneration.providers.1 dropped',
    ])
    expect(config.tools.dynamicConfig.map(({ description }) => description)).toEqual(['first'])
    expect(config.imageGeneration.providers.map(({ type }) => type)).toEqual(['compat-image-new'])
  })
})

describe('sections the edge does not act on yet', () => {
  it('get one warning each when set, in the file or through an override', () => {
    const { warnings } = resolveAgentPack(
      yaml(`
flows: { welcome: { enabled: true }, authentication: { required: true, defaultRole: r }, menu: { items: [{ id: a, label: A }] } }
tools: { dynamicConfig: [] }
speechToText: { requireAuth: true }
vision: { requireAuth: true, provider: { type: compat-vision } }
`),
      { MCP_SERVERS_CONFIG: '[]' },
    )
    expect(warnings).toEqual(['vision.provider: valid, but not acted on by the edge yet; ignored'])
  })

  it('do not include what the edge acts on (languages, llm, memory, flows, tools, mcp, integrations, the requireAuth gates)', () => {
    for (const path of [
      'languages',
      'llm',
      'llm.model',
      'memory',
      'memory.window',
      'memory.backend',
      'flows',
      'flows.welcome',
      'flows.welcome.sendOnProfile',
      'flows.authentication',
      'flows.menu',
      'speechToText',
      'speechToText.requireAuth',
      'vision',
      'vision.requireAuth',
      'metadata.defaultLanguage',
      'tools',
      'integrations',
      'mcp',
      'mcp.servers',
    ]) {
      expect(NOT_ACTED_ON_AT_THE_EDGE).not.toContain(path)
    }
  })
})

describe('maskSecrets', () => {
  it('masks keys, passwords, tokens, header and stdio env values, URL passwords; keeps the rest', () => {
    expect(
      maskSecrets({
        llm: { apiKey: 'sk-1', model: 'm' },
        memory: { redisUrl: 'redis://user:pw@host:6379/0' },
        mcp: {
          servers: [
            {
              headers: { Authorization: 'Bearer t', 'X-Other': 'v' },
              env: { TOKEN: 't' },
              userConfig: { fields: [{ name: 'token', type: 'secret' }] },
            },
          ],
        },
        tools: { dynamicConfig: [{ authHeader: 'X-Key', authToken: 'abc' }] },
        integrations: { sqldb: { password: 'pw', user: 'u' }, agent: { stats: { password: '' } } },
        objectStore: { accessKey: 'a', secretKey: 's', bucket: 'b' },
      }),
    ).toEqual({
      llm: { apiKey: MASK, model: 'm' },
      memory: { redisUrl: `redis://user:${MASK}@host:6379/0` },
      mcp: {
        servers: [
          {
            headers: { Authorization: MASK, 'X-Other': MASK },
            env: { TOKEN: MASK },
            userConfig: { fields: [{ name: 'token', type: 'secret' }] },
          },
        ],
      },
      tools: { dynamicConfig: [{ authHeader: 'X-Key', authToken: MASK }] },
      integrations: { sqldb: { password: MASK, user: 'u' }, agent: { stats: { password: '' } } },
      objectStore: { accessKey: MASK, secretKey: MASK, bucket: 'b' },
    })
  })
})

describe('the JSON Schema for editors', () => {
  it(`is committed as ${AGENT_PACK_SCHEMA_FILE}, equal to the one generated from the zod schema`, async () => {
    const committed = await readFile(new URL(`../../${AGENT_PACK_SCHEMA_FILE}`, import.meta.url), 'utf8')
    expect(JSON.parse(committed)).toEqual(JSON.parse(JSON.stringify(agentPackJsonSchema())))
  })

  it('is referenced by the default pack, and lists aliases, defaults and unknown-key checks', async () => {
    const pack = await readFile(new URL('../../agent-packs/agent-pack.yaml', import.meta.url), 'utf8')
    expect(pack.split('\n')[0]).toBe('# yaml-language-server: $schema=./agent-pack.schema.json')
    const schema = agentPackJsonSchema() as {
      additionalProperties: unknown
      properties: Record<string, { properties: Record<string, Record<string, unknown>> }>
    }
    expect(schema.additionalProperties).toBe(false)
    expect(schema.properties.llm!.properties.provider).toMatchObject({
      enum: ['compat', 'local', 'anthropic', 'openai', 'ollama'],
      default: 'compat',
    })
    expect(schema.properties.llm!.properties.temperature).toMatchObject({ type: ['number', 'string'], default: 0.3 })
    expect(schema.properties.integrations!.properties.vsAgent).toMatchObject({ deprecated: true, description: 'Alias of agent.' })
    expect(schema.properties.tools!.properties.dynamicConfig!.anyOf).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'string' })]),
    )
  })
})

describe('an editor validating with the JSON Schema', () => {
  const validate = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(agentPackJsonSchema())
  const read = async (path: string) => parseYaml(await readFile(new URL(path, import.meta.url), 'utf8')) as unknown

  it('accepts the default pack and packs in both spellings', async () => {
    for (const path of [
      '../../agent-packs/agent-pack.yaml',
      'fixtures/agent-packs/vendor-spellings/agent-pack.yaml',
      'fixtures/agent-packs/neutral/agent-pack.json',
    ]) {
      expect(validate(await read(path)), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true)
    }
  })

  it('flags an unknown key and a wrong value where they are', () => {
    expect(validate({ llm: { temprature: 0.5 }, memory: { backend: 'disk' } })).toBe(false)
    expect(validate.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ instancePath: '/llm', params: { additionalProperty: 'temprature' } }),
        expect.objectContaining({ instancePath: '/memory/backend', keyword: 'enum' }),
      ]),
    )
  })
})
