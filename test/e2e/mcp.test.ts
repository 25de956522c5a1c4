/**
 * MCP servers end to end, every part real but the model: agent-node and the worker in workerd
 * (`wrangler dev`, its test entry) joined by the tunnel, a Credo wallet peer over WebSocket on
 * loopback, the repository's MCP test servers (the SDK's server classes) and the scripted model,
 * which asks for a tool when the user writes `call <tool> <text>` and answers `tool said: <result>`.
 *
 * Servers: `web` (streamable-http) and `stream` (sse) are admin-controlled with a required API
 * key header; both expose `echo`, so `stream`'s becomes `stream_echo` (the naming rule); `flaky`
 * goes down mid-test; `vault` is user-controlled and wants `Authorization: Bearer <token>`, the
 * token a `secret` the user types in chat.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'libsql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'
import { startMcpTestServer, type McpTestServer } from '../support/mcp/server.ts'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

const WORKER_ENTRY = 'edge-worker/test/entry/index.ts'
const ADMIN_KEY = `admin-${randomUUID()}`
/** The user's vault token: must end up nowhere but sealed in the session. */
const SECRET = `vault-token-${randomUUID()}`
/** A wrong token the user types first: a secret too. */
const WRONG = `wrong-token-${randomUUID()}`

describe('MCP servers: tools over streamable-http and sse, a server down, user-controlled configuration with a secret', () => {
  let llm: ScriptedLlm
  let web: McpTestServer
  let stream: McpTestServer
  let flaky: McpTestServer
  let vault: McpTestServer
  let stack: LocalStack
  let wallet: WalletPeer
  let packDir: string
  let dataDir: string
  let connectionId: string
  let agentConnectionId: string

  const menuNames = (record: { menu?: { options: { name: string }[] } | null }) => (record.menu?.options ?? []).map((o) => o.name)
  const menuWith = (first: string) => wallet.contextualMenu(connectionId, (record) => menuNames(record)[0] === first)
  async function say(text: string): Promise<string> {
    const reply = wallet.nextText((message) => message.connectionId === connectionId, 60_000)
    await wallet.sendText(connectionId, text)
    return (await reply).content
  }
  async function select(option: string): Promise<string> {
    const reply = wallet.nextText((message) => message.connectionId === connectionId, 60_000)
    await wallet.performContextualMenuOption(connectionId, option)
    return (await reply).content
  }

  beforeAll(async () => {
    llm = await startScriptedLlm({
      reply: (messages) => {
        const last = messages.at(-1)!
        if (last.role === 'tool') return `tool said: ${String(last.content)}`
        const call = /^call (\S+) (.*)$/.exec(String(last.content))
        return call ? { toolCalls: [{ name: call[1]!, arguments: { text: call[2]! } }] } : `echo: ${String(last.content)}`
      },
    })
    web = await startMcpTestServer({ name: 'web', echoPrefix: 'web says: ', requiredHeaders: { 'x-api-key': ADMIN_KEY } })
    stream = await startMcpTestServer({ name: 'stream', echoPrefix: 'sse says: ', requiredHeaders: { 'x-api-key': ADMIN_KEY } })
    flaky = await startMcpTestServer({ name: 'flaky', toolNames: { echo: 'flaky_echo', add: 'flaky_add', fail: 'flaky_fail' } })
    vault = await startMcpTestServer({
      name: 'vault',
      echoPrefix: 'vault says: ',
      toolNames: { echo: 'vault_echo', add: 'vault_add', fail: 'vault_fail' },
      requiredHeaders: { authorization: `Bearer ${SECRET}` },
    })
    packDir = mkdtempSync(join(tmpdir(), 'parley-mcp-pack-'))
    writeFileSync(
      join(packDir, 'agent-pack.json'),
      JSON.stringify({
        metadata: { id: 'mcp-e2e', defaultLanguage: 'en' },
        languages: { en: { greetingMessage: 'Hello {userName}!' } },
        llm: { provider: 'compat' },
        flows: {
          welcome: { enabled: true },
          menu: {
            items: [
              { id: 'configure', label: 'Configure vault', action: 'mcp-config', visibleWhen: 'notConfiguring' },
              { id: 'abort', label: 'Cancel configuration', action: 'abort-config', visibleWhen: 'configuring' },
            ],
          },
        },
        mcp: {
          servers: [
            { name: 'web', transport: 'streamable-http', url: web.streamableUrl, headers: { 'x-api-key': ADMIN_KEY } },
            { name: 'stream', transport: 'sse', url: stream.sseUrl, headers: { 'x-api-key': ADMIN_KEY }, reconnect: true },
            { name: 'flaky', transport: 'streamable-http', url: flaky.streamableUrl },
            {
              name: 'vault',
              transport: 'streamable-http',
              url: vault.streamableUrl,
              accessMode: 'user-controlled',
              userConfig: {
                fields: [
                  { name: 'token', type: 'secret', label: { en: 'your vault token', es: 'tu token' }, headerTemplate: 'Bearer {value}' },
                ],
              },
            },
          ],
        },
      }),
    )
    dataDir = mkdtempSync(join(tmpdir(), 'parley-mcp-e2e-'))
    stack = await startLocalStack({
      workerVars: {
        COMPAT_BASE_URL: llm.url,
        COMPAT_API_KEY: 'test-key',
        COMPAT_MODEL: 'scripted-model',
        OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32',
        MCP_SECRETS_KEY: randomBytes(32).toString('base64'),
        LOG_LEVEL: 'debug',
      },
      workerEntry: WORKER_ENTRY,
      agentPackPath: packDir,
      agentEnv: { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'debug' },
    })
    wallet = await WalletPeer.create({ label: 'mcp wallet', logger: createLogger('error', 'wallet') })
    const { url } = (await (await fetch(`${stack.agent.adminUrl}/v1/invitation`)).json()) as { url: string }
    const greeting = wallet.nextText()
    connectionId = await wallet.connect(url)
    await greeting
    const menu = await wallet.contextualMenu(connectionId)
    expect(menuNames(menu)).toEqual(['configure'])
    agentConnectionId = (
      (await (await fetch(`${stack.agent.adminUrl}/v1/connections`)).json()) as { id: string; theirLabel?: string }[]
    ).find((connection) => connection.theirLabel === 'mcp wallet')!.id
  }, 240_000)

  afterAll(async () => {
    await wallet?.stop()
    await stack?.stop()
    for (const server of [llm, web, stream, flaky, vault]) await server?.close().catch(() => undefined)
    if (packDir) rmSync(packDir, { recursive: true, force: true })
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('the model calls a tool over streamable-http and the answer reaches the wallet; the server key went with every request', async () => {
    expect(await say('call echo hello there')).toBe('tool said: web says: hello there')
    expect(web.calls).toEqual([{ tool: 'echo', args: { text: 'hello there' } }])
    expect(web.requests.every((request) => request.headers['x-api-key'] === ADMIN_KEY)).toBe(true)
    const offered = llm.requests.find((request) => request.tools?.length)!.tools!.map((tool) => tool.function.name)
    expect(offered).toEqual(['echo', 'add', 'fail', 'stream_echo', 'stream_add', 'stream_fail', 'flaky_echo', 'flaky_add', 'flaky_fail'])
    expect(llm.requests.at(-2)!.tools!.find((tool) => tool.function.name === 'add')!.function.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    })
  })

  it('the model calls a tool over sse (renamed stream_echo: web has an echo too)', async () => {
    expect(await say('call stream_echo over sse')).toBe('tool said: sse says: over sse')
    expect(stream.calls).toEqual([{ tool: 'echo', args: { text: 'over sse' } }])
    expect(stream.requests.some((request) => request.method === 'GET' && request.path === '/sse')).toBe(true)
  })

  it('a server that is down: the model gets a tool error naming it, and the turn goes on to an answer', async () => {
    await flaky.close()
    const answer = await say('call flaky_echo anyone')
    expect(answer).toMatch(/^tool said: error: MCP server 'flaky' is unavailable: /)
    // The other servers still answer.
    expect(await say('call echo still here')).toBe('tool said: web says: still here')
  })

  it('user-controlled: an invalid configuration answers MCP_CONFIG_INVALID and saves nothing', async () => {
    const configuring = menuWith('abort')
    expect(await select('configure')).toBe('Configuring vault: please send your vault token.')
    expect(menuNames(await configuring)).toEqual(['abort'])
    const done = menuWith('configure')
    expect(await say(WRONG)).toBe(
      'The configuration of vault did not work (the server refused it or could not be reached), so it was not saved.',
    )
    await done
    // Not configured: the model is not offered the vault's tools.
    await say('what tools now?')
    expect(llm.requests.at(-1)!.tools!.map((tool) => tool.function.name)).not.toContain('vault_echo')
  })

  it('abort-config drops the configuration being asked for', async () => {
    expect(await select('configure')).toBe('Configuring vault: please send your vault token.')
    await menuWith('abort')
    expect(await select('abort')).toBe('Configuration cancelled; nothing more was saved.')
    await menuWith('configure')
    // The next text goes to the model again.
    expect(await say('back to chat')).toBe('echo: back to chat')
  })

  it('user-controlled: a secret is tested, saved, and the tool works with it as the Authorization header', async () => {
    expect(await select('configure')).toBe('Configuring vault: please send your vault token.')
    expect(await say(SECRET)).toBe('The configuration of vault is saved and its tools are ready.')
    expect(await say('call vault_echo open sesame')).toBe('tool said: vault says: open sesame')
    expect(vault.calls).toEqual([{ tool: 'vault_echo', args: { text: 'open sesame' } }])
  })

  it('the secrets are nowhere: not in any log line, the model requests, the conversation storage or agent-node’s outbox', async () => {
    // agent-node has run the redact-message commands once the outbox shows the marker.
    const database = new Database(join(dataDir, 'agent.sqlite'))
    const received = async () =>
      (database.prepare("SELECT body FROM event_outbox WHERE topic = 'message-received'").all() as { body: string }[]).map((row) =>
        String(row.body),
      )
    const deadline = Date.now() + 20_000
    while ((await received()).filter((body) => body.includes('[redacted]')).length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100))
    const outbox = await received()
    database.close()
    expect(outbox.filter((body) => body.includes('[redacted]'))).toHaveLength(2)

    const storage = await (
      await fetch(`${stack.worker.url}/test-hooks/conversations/${agentConnectionId}/storage`, {
        headers: { authorization: `Bearer ${stack.tunnelSecret}` },
      })
    ).text()
    expect(storage).toContain('[redacted]')
    const places = {
      workerLog: stack.worker.output(),
      agentLog: stack.agent.output(),
      modelRequests: JSON.stringify(llm.requests),
      conversationStorage: storage,
      outbox: outbox.join('\n'),
    }
    for (const [place, text] of Object.entries(places)) {
      expect(text.length, place).toBeGreaterThan(0)
      expect(text.includes(SECRET), `${place} holds the secret`).toBe(false)
      expect(text.includes(WRONG), `${place} holds the wrong token`).toBe(false)
    }
  })
})
