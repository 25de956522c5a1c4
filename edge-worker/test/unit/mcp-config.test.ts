/**
 * Flow `mcp-config` (src/flows/mcp-config/) through `handleEvent`, as the conversation runs it,
 * with the MCP clients stubbed (the real clients: mcp.test.ts; the whole path: test/e2e/mcp.test.ts).
 */
import { resolveAgentPack, type AgentPackConfig } from '@parley/shared/agent-pack'
import type { AgentEvent } from '@parley/shared/events'
import type { TunnelCommand } from '@parley/shared/tunnel'
import { describe, expect, it } from 'vitest'
import { menuFacts } from '../../src/flows/menu/menu.ts'
import { handleEvent, type StepResult } from '../../src/flows/step.ts'
import { createLogger } from '../../src/logging/index.ts'
import type { McpClients } from '../../src/mcp/clients.ts'
import { secretBox, type SecretBox } from '../../src/mcp/secrets.ts'
import type { McpServerConfig } from '../../src/mcp/types.ts'
import { mcpConfigState } from '../../src/mcp/user-config.ts'
import { newSession, type Session } from '../../src/session/index.ts'

const CONNECTION = '11111111-1111-4111-8111-111111111111'
const SECRET = 'tok-9f3c1d'

function packWith(servers: unknown[], authentication: Record<string, unknown> = {}): AgentPackConfig {
  const text = JSON.stringify({
    flows: {
      authentication,
      menu: {
        items: [
          { id: 'configure', label: 'Configure', action: 'mcp-config', visibleWhen: 'notConfiguring' },
          { id: 'abort', label: 'Cancel', action: 'abort-config', visibleWhen: 'configuring' },
        ],
      },
    },
    mcp: { servers },
  })
  return resolveAgentPack({ path: 'agent-pack.json', text }, {}).config
}

const vault = {
  name: 'vault',
  transport: 'streamable-http',
  url: 'https://vault.example.com/mcp',
  accessMode: 'user-controlled',
  headers: { 'x-client': 'parley' },
  userConfig: {
    fields: [
      { name: 'tenant', type: 'text', label: 'your tenant', headerName: 'x-tenant' },
      { name: 'token', type: 'secret', label: { en: 'your token', es: 'tu token' }, headerTemplate: 'Bearer {value}' },
    ],
  },
}

/** A conversation in memory with stubbed MCP clients: `probe` accepts only `Bearer <SECRET>`. */
class Harness {
  session: Session = newSession()
  probes: Record<string, string>[] = []
  commands: TunnelCommand[] = []
  last?: StepResult
  constructor(
    private readonly config: AgentPackConfig,
    withKey = true,
  ) {
    this.secrets = withKey ? secretBox('unit test key') : undefined
  }
  private readonly secrets: SecretBox | undefined

  private clients(): McpClients {
    return {
      servers: this.config.mcp.servers,
      secrets: this.secrets,
      probe: async (_server: McpServerConfig, headers: Record<string, string>) => {
        this.probes.push(headers)
        if (headers.Authorization !== `Bearer ${SECRET}`) throw new Error(`HTTP 401 for ${headers.Authorization}`)
        return []
      },
      toolsFor: async () => [],
    } as unknown as McpClients
  }

  /** Handles `event`; resolves with the texts sent. */
  async send(message: Record<string, unknown>): Promise<string[]> {
    const event = {
      type: 'message-received',
      message: { id: crypto.randomUUID(), connectionId: CONNECTION, timestamp: 0, threadId: null, ...message },
    } as AgentEvent
    this.last = await handleEvent({
      event,
      eventId: 'e',
      connectionId: CONNECTION,
      session: this.session,
      config: this.config,
      now: 0,
      log: createLogger('test', 'error'),
      chat: { tools: [], fetch, history: () => [], mcp: this.clients() },
    })
    this.session = this.last.session
    this.commands.push(...this.last.commands)
    return this.last.commands.flatMap((command) =>
      command.name === 'send-message' && command.message.type === 'text' ? [command.message.content] : [],
    )
  }
  select = (id: string) => this.send({ type: 'contextual-menu-select', selectionId: id })
  say = (content: string) => this.send({ type: 'text', content })
}

describe('flow mcp-config', () => {
  it('asks for each field, seals the secret, redacts its message, tests the headers, then saves', async () => {
    const chat = new Harness(packWith([vault]))
    expect(await chat.select('configure')).toEqual(['Configuring vault: please send your tenant.'])
    expect(menuFacts(chat.session).configuring).toBe(true)
    expect(chat.session.activeFlow).toBe('mcp-config')

    expect(await chat.say(' acme ')).toEqual(['Configuring vault: please send your token.'])
    expect(chat.last!.redact).toBe(false)

    expect(await chat.say(SECRET)).toEqual(['The configuration of vault is saved and its tools are ready.'])
    expect(chat.last!.redact).toBe(true)
    expect(chat.last!.record).toEqual([])
    const redaction = chat.last!.commands.find((command) => command.name === 'redact-message')
    expect(redaction).toMatchObject({ name: 'redact-message', connectionId: CONNECTION, messageId: expect.any(String) })
    expect(chat.probes).toEqual([{ 'x-client': 'parley', 'x-tenant': 'acme', Authorization: `Bearer ${SECRET}` }])

    const state = mcpConfigState(chat.session.flowState)
    expect(state.pending).toBeUndefined()
    expect(state.saved?.vault?.tenant).toEqual({ text: 'acme' })
    expect(state.saved?.vault?.token).toEqual({ sealed: expect.stringMatching(/^v1\./) })
    expect(JSON.stringify(chat.session)).not.toContain(SECRET)
    expect(JSON.stringify(chat.commands)).not.toContain(SECRET)
    expect(menuFacts(chat.session).configuring).toBe(false)
    expect(chat.session.activeFlow).toBeUndefined()
  })

  it('a configuration the server refuses is not saved (MCP_CONFIG_INVALID); a saved one stays', async () => {
    const chat = new Harness(packWith([vault]))
    await chat.select('configure')
    await chat.say('acme')
    await chat.say(SECRET)
    await chat.select('configure')
    await chat.say('other')
    expect(await chat.say('wrong')).toEqual([
      'The configuration of vault did not work (the server refused it or could not be reached), so it was not saved.',
    ])
    expect(chat.last!.redact).toBe(true)
    expect(mcpConfigState(chat.session.flowState).saved?.vault?.tenant).toEqual({ text: 'acme' })
  })

  it('with authentication required, a guest is asked to authenticate first: nothing is asked, so no secret is typed', async () => {
    const chat = new Harness(packWith([vault], { required: true }))
    expect(await chat.select('configure')).toEqual([
      'Please authenticate first: choose "Authenticate" in the menu and present your credential.',
    ])
    expect(mcpConfigState(chat.session.flowState).pending).toBeUndefined()
    expect(menuFacts(chat.session).configuring).toBe(false)
  })

  it('abort-config drops what is being asked for', async () => {
    const chat = new Harness(packWith([vault]))
    await chat.select('configure')
    expect(await chat.select('abort')).toEqual(['Configuration cancelled; nothing more was saved.'])
    expect(mcpConfigState(chat.session.flowState).pending).toBeUndefined()
    expect(chat.session.activeFlow).toBeUndefined()
  })

  it('labels follow the user’s language; an empty value asks again', async () => {
    const chat = new Harness(packWith([vault]))
    chat.session = { ...chat.session, language: 'es' }
    await chat.select('configure')
    expect(await chat.say('acme')).toEqual(['Configurando vault: por favor, envía tu token.'])
    expect(await chat.say('   ')).toEqual(['Configurando vault: por favor, envía tu token.'])
  })

  it('without MCP_SECRETS_KEY a server asking for a secret cannot be configured; without user-controlled servers there is nothing to configure', async () => {
    const noKey = new Harness(packWith([vault]), false)
    expect(await noKey.select('configure')).toEqual([
      'vault cannot be configured: this service has no key to keep secrets. Please let its operator know.',
    ])
    expect(menuFacts(noKey.session).configuring).toBe(false)
    const none = new Harness(packWith([{ name: 'web', transport: 'sse', url: 'https://web.example.com/sse' }]))
    expect(await none.select('configure')).toEqual(['There is nothing to configure on this service.'])
  })
})
