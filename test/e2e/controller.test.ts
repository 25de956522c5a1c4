/**
 * The controller end to end, every part real but the model: agent-node and the edge worker
 * (workerd via `wrangler dev`) joined by the tunnel, Credo wallet peers over WebSocket on
 * loopback, an HTTP tool served by this test, and scripted models (OpenAI-compatible, then
 * Anthropic Messages). The worker runs a test pack (written below) with a Spanish language
 * entry, `flows.welcome.sendOnProfile`, and two external HTTP tools in hologram-ai-agent's
 * format, one of them `requiresAuth`.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { restartWorker, startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'
import { startScriptedAnthropic, type AnthropicBlock, type ScriptedAnthropic } from '@parley/edge-worker/testing/scripted-anthropic'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

const TOOL_TOKEN = 'weather-token-1234'
const ANTHROPIC_KEY = 'anthropic-test-key'

/** The HTTP tool: `GET /weather?q=<city>` answers a forecast and records the requests. */
async function startWeatherService(): Promise<{
  url: string
  requests: { query: string | null; headers: IncomingHttpHeaders }[]
  server: Server
}> {
  const requests: { query: string | null; headers: IncomingHttpHeaders }[] = []
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    requests.push({ query: url.searchParams.get('q'), headers: request.headers })
    response.writeHead(200, { 'content-type': 'text/plain' })
    response.end(`Sunny, 22 C in ${url.searchParams.get('q')}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server }
}

function writePack(dir: string, toolOrigin: string): void {
  writeFileSync(
    join(dir, 'agent-pack.yaml'),
    `
metadata: { id: controller-e2e, defaultLanguage: en }
languages:
  en:
    greetingMessage: "Hello {userName}, welcome!"
    systemPrompt: "Answer in English."
  es:
    greetingMessage: "¡Hola {userName}! Bienvenido."
    systemPrompt: "Responde en español."
llm:
  provider: compat
  agentPrompt: "You are the controller test agent."
memory: { backend: kvstore, window: 8 }
flows:
  welcome: { enabled: true, sendOnProfile: true }
tools:
  dynamicConfig:
    - name: weather
      description: Current weather for a city
      endpoint: "${toolOrigin}/weather?q={query}"
      method: GET
      authHeader: x-tool-key
      authToken: "\${WEATHER_TOOL_TOKEN}"
      requiresAuth: false
    - name: payroll
      description: Salary records
      endpoint: "${toolOrigin}/payroll?q={query}"
      requiresAuth: true
`,
  )
}

/** The model script, for any provider: a tool result becomes the answer, a weather question a call. */
function answer(lastToolResult: string | undefined, userText: string, offered: string[]) {
  if (lastToolResult !== undefined) return `Según el servicio: ${lastToolResult}`
  const city = /weather in (.+?)\?/.exec(userText)?.[1]
  if (city && offered.includes('weather')) return { toolCalls: [{ name: 'weather', arguments: { query: city } }] }
  return `echo: ${userText}`
}

describe('the controller: languages, the welcome flow and tool calling', () => {
  let llm: ScriptedLlm
  let anthropic: ScriptedAnthropic
  let weather: Awaited<ReturnType<typeof startWeatherService>>
  let stack: LocalStack
  let wallet: WalletPeer
  let packDir: string
  let dataDir: string
  let connectionId: string
  const admin = (path: string) => fetch(`${stack.agent.adminUrl}${path}`)
  const workerVars = (extra: Record<string, string> = {}) => ({
    COMPAT_BASE_URL: llm.url,
    COMPAT_API_KEY: 'test-key',
    COMPAT_MODEL: 'scripted-model',
    WEATHER_TOOL_TOKEN: TOOL_TOKEN,
    OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32',
    ...extra,
  })

  beforeAll(async () => {
    weather = await startWeatherService()
    llm = await startScriptedLlm({
      reply: (messages, request) => {
        const last = messages.at(-1)!
        const user = messages.findLast((message) => message.role === 'user')
        return answer(
          last.role === 'tool' ? String(last.content) : undefined,
          String(user?.content),
          (request.tools ?? []).map((tool) => tool.function.name),
        )
      },
    })
    anthropic = await startScriptedAnthropic({
      apiKey: ANTHROPIC_KEY,
      reply: (messages, request) => {
        const blocks = (content: string | AnthropicBlock[]): AnthropicBlock[] =>
          typeof content === 'string' ? [{ type: 'text', text: content }] : content
        const last = blocks(messages.at(-1)!.content)
        const result = last.find((block) => block.type === 'tool_result')
        const text = messages.findLast(
          (message) => message.role === 'user' && blocks(message.content).some((block) => block.type === 'text'),
        )
        const userText = text
          ? blocks(text.content)
              .flatMap((block) => (block.type === 'text' ? [block.text] : []))
              .join('')
          : ''
        return answer(
          result ? String(result.content) : undefined,
          userText,
          (request.tools ?? []).map((tool) => tool.name),
        )
      },
    })
    packDir = mkdtempSync(join(tmpdir(), 'parley-controller-pack-'))
    writePack(packDir, weather.url)
    dataDir = mkdtempSync(join(tmpdir(), 'parley-controller-e2e-'))
    stack = await startLocalStack({
      workerVars: workerVars(),
      agentPackPath: packDir,
      agentEnv: { DATA_DIR: dataDir, AGENT_WALLET_KEY: randomBytes(32).toString('base64url'), LOG_LEVEL: 'warn' },
    })
    wallet = await WalletPeer.create({ label: 'controller e2e wallet', logger: createLogger('error', 'wallet') })
  })

  afterAll(async () => {
    await wallet?.stop()
    await stack?.stop()
    await Promise.all([llm?.close(), anthropic?.close(), new Promise((resolve) => weather?.server.close(resolve))])
    rmSync(packDir, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('greets in the language of the profile (preferredLanguage es) with the display name', async () => {
    const { url } = (await (await admin('/v1/invitation')).json()) as { url: string }
    const greeting = wallet.nextText()
    connectionId = await wallet.connect(url)
    await wallet.agent.modules.userProfile.send(connectionId, { profile: { displayName: 'Ana', preferredLanguage: 'es' } })
    expect((await greeting).content).toBe('¡Hola Ana! Bienvenido.')
  })

  it('lets the model call the HTTP tool and sends the answer built from its result', async () => {
    const reply = wallet.nextText((message) => message.content.startsWith('Según'))
    await wallet.sendText(connectionId, 'what is the weather in Bogotá?')
    expect((await reply).content).toBe('Según el servicio: Sunny, 22 C in Bogotá')

    expect(weather.requests.at(-1)).toMatchObject({ query: 'Bogotá', headers: { 'x-tool-key': TOOL_TOKEN } })
    const [first, second] = llm.requests.slice(-2)
    expect(first!.messages[0]).toEqual({ role: 'system', content: 'You are the controller test agent.\n\nResponde en español.' })
    expect(second!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Sunny, 22 C in Bogotá' })
  })

  it('does not show a guest the requiresAuth tool', () => {
    const offered = llm.requests.at(-1)!.tools?.map((tool) => tool.function.name)
    expect(offered).toEqual(['weather'])
  })

  it('does the same through the Anthropic Messages API', async () => {
    await restartWorker(stack, {
      agentPackPath: packDir,
      vars: {
        ...workerVars({
          LLM_PROVIDER: 'anthropic',
          COMPAT_BASE_URL: anthropic.url,
          COMPAT_API_KEY: ANTHROPIC_KEY,
          COMPAT_MODEL: 'claude-scripted',
        }),
      },
    })
    const reply = wallet.nextText((message) => message.content.includes('Lima'), 60_000)
    await wallet.sendText(connectionId, 'what is the weather in Lima?')
    expect((await reply).content).toBe('Según el servicio: Sunny, 22 C in Lima')

    const [first, second] = anthropic.requests.slice(-2)
    expect(first).toMatchObject({ model: 'claude-scripted', system: 'You are the controller test agent.\n\nResponde en español.' })
    expect(first!.tools?.map((tool) => tool.name)).toEqual(['weather'])
    expect(second!.messages.at(-1)!.content).toEqual([
      { type: 'tool_result', tool_use_id: expect.stringMatching(/^toolu_/), content: 'Sunny, 22 C in Lima' },
    ])
    // Memory backend kvstore: the earlier exchange survived the worker restart.
    expect(JSON.stringify(first!.messages)).toContain('what is the weather in Bogotá?')
  })

  it('greets in the default language when no profile comes (sendOnProfile waits a few seconds)', async () => {
    const silent = await WalletPeer.create({ label: 'silent wallet', logger: createLogger('error', 'wallet') })
    try {
      const { url } = (await (await admin('/v1/invitation')).json()) as { url: string }
      const greeting = silent.nextText(() => true, 30_000)
      await silent.connect(url)
      expect((await greeting).content).toBe('Hello there, welcome!')
    } finally {
      await silent.stop()
    }
  })
})
