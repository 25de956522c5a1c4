/**
 * The walking skeleton end to end, every part real but the LLM: agent-node and the edge worker
 * (workerd via `wrangler dev`) as processes joined by the tunnel, a Credo wallet peer over
 * WebSocket on loopback, a webhook receiver, and the scripted OpenAI-compatible server.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConnectionStateUpdatedEvent, MessageReceivedEvent, MessageStateUpdatedEvent } from '@parley/shared'
import { resolveAgentPack } from '@parley/shared/agent-pack'
import { loadAgentPackFile } from '@parley/shared/agent-pack/node'
import { createLogger } from '../../agent-node/src/logging/index.ts'
import { WalletPeer } from '../../agent-node/src/wallet-peer/WalletPeer.ts'
import { ROOT, restartWorker, startLocalStack, type LocalStack } from '../../scripts/local-stack.ts'
import { startEventReceiver, type EventReceiver } from '@parley/agent-node/testing/event-receiver'
import { startScriptedLlm, type ScriptedLlm } from '@parley/edge-worker/testing/scripted-llm'

const pack = resolveAgentPack(await loadAgentPackFile(join(ROOT, 'agent-packs')), {}).config
const greetingTemplate = pack.languages[pack.metadata.defaultLanguage]!.greetingMessage!
/** The greeting with `{userName}` standing for any text. */
const greetingPattern = new RegExp(`^${greetingTemplate.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{userName\\?\}/g, '.*')}$`)

describe('a wallet chats with the LLM controller through agent-node, the tunnel and a Durable Object', () => {
  let llm: ScriptedLlm
  let receiver: EventReceiver
  let stack: LocalStack
  let wallet: WalletPeer
  let dataDir: string
  let walletConnectionId: string
  let agentConnectionId: string
  const admin = (path: string, init?: RequestInit) => fetch(`${stack.agent.adminUrl}${path}`, init)

  beforeAll(async () => {
    llm = await startScriptedLlm({ reply: (messages) => `echo: ${messages.at(-1)?.content}` })
    receiver = await startEventReceiver()
    dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'))
    stack = await startLocalStack({
      workerVars: { COMPAT_BASE_URL: llm.url, COMPAT_API_KEY: 'test-key', COMPAT_MODEL: 'scripted-model', AGENT_MEMORY_BACKEND: 'kvstore' },
      agentEnv: {
        EVENTS_BASE_URL: receiver.url,
        DATA_DIR: dataDir,
        AGENT_WALLET_KEY: randomBytes(32).toString('base64url'),
        ENABLE_PUBLIC_API_EXPLORER: 'true',
        LOG_LEVEL: 'info',
      },
    })
    wallet = await WalletPeer.create({ label: 'e2e wallet', logger: createLogger('error', 'wallet') })
  })

  afterAll(async () => {
    await wallet?.stop()
    await stack?.stop()
    await receiver?.close()
    await llm?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('connects through GET /v1/invitation and receives the agent pack greeting', async () => {
    const invitation = (await (await admin('/v1/invitation')).json()) as { url: string; outOfBandId: string }
    expect(invitation.url).toMatch(/[?&]oob=/)
    const greeting = wallet.nextText()
    walletConnectionId = await wallet.connect(invitation.url)
    expect((await greeting).content).toMatch(greetingPattern)

    const completed = await receiver.waitFor((e) => e.topic === 'connection-state-updated' && e.body.state === 'completed')
    agentConnectionId = ConnectionStateUpdatedEvent.parse(completed.body).connectionId
    const connection = await (await admin(`/v1/connections/${agentConnectionId}`)).json()
    expect(connection).toMatchObject({
      id: agentConnectionId,
      state: 'completed',
      role: 'responder',
      theirLabel: 'e2e wallet',
      outOfBandId: invitation.outOfBandId,
    })
  })

  it('answers text with the LLM reply, built from the pack system prompt and the user turn', async () => {
    const reply = wallet.nextText((m) => m.content.startsWith('echo:'))
    await wallet.sendText(walletConnectionId, 'hello, who are you?')
    expect((await reply).content).toBe('echo: hello, who are you?')

    const request = llm.requests.at(-1)!
    expect(request.model).toBe('scripted-model')
    expect(request.messages[0]).toEqual({ role: 'system', content: pack.languages.en!.systemPrompt })
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'hello, who are you?' })
  })

  it('reports the spec events to EVENTS_BASE_URL with the spec bodies', async () => {
    const states = receiver.events
      .filter((e) => e.topic === 'connection-state-updated' && e.body.connectionId === agentConnectionId)
      .map((e) => ConnectionStateUpdatedEvent.strict().parse(e.body).state)
    expect(states).toEqual(['request-received', 'response-sent', 'completed'])

    const received = await receiver.waitFor((e) => e.topic === 'message-received')
    const body = MessageReceivedEvent.strict().parse(received.body)
    expect(body.message).toMatchObject({ type: 'text', connectionId: agentConnectionId, content: 'hello, who are you?', threadId: null })

    // The greeting and the reply each went created -> sent, in that order.
    await receiver.waitFor(
      (e) =>
        e.topic === 'message-state-updated' &&
        e.body.state === 'sent' &&
        receiver.events.filter((x) => x.body.state === 'sent').length >= 2,
    )
    const byMessage = new Map<string, string[]>()
    for (const e of receiver.events.filter((x) => x.topic === 'message-state-updated')) {
      const event = MessageStateUpdatedEvent.strict().parse(e.body)
      expect(event.connectionId).toBe(agentConnectionId)
      byMessage.set(event.messageId, [...(byMessage.get(event.messageId) ?? []), event.state])
    }
    expect([...byMessage.values()]).toEqual([
      ['created', 'sent'],
      ['created', 'sent'],
    ])
  })

  it('refuses malformed admin bodies with a 4xx naming the field', async () => {
    const post = (body: string) => admin('/v1/message', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    const missing = await post(JSON.stringify({ type: 'text', connectionId: agentConnectionId }))
    expect(missing.status).toBe(400)
    expect(((await missing.json()) as { issues: unknown[] }).issues).toContainEqual(expect.objectContaining({ field: 'content' }))

    const badType = await post(JSON.stringify({ type: 'telegram', connectionId: agentConnectionId, content: 'x' }))
    expect(badType.status).toBe(400)
    expect(((await badType.json()) as { issues: unknown[] }).issues).toContainEqual(expect.objectContaining({ field: 'type' }))

    const notJson = await post('{"type": "text",')
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toMatchObject({ error: 'malformed_json' })
  })

  it('answers 404 for an unknown connection id', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000'
    expect((await admin(`/v1/connections/${unknown}`)).status).toBe(404)
    const send = await admin('/v1/message', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'text', connectionId: unknown, content: 'anyone?' }),
    })
    expect(send.status).toBe(404)
    expect(await send.json()).toMatchObject({ error: 'not_found' })
  })

  it('rejects a garbage DIDComm POST on the public port and keeps serving', async () => {
    const post = (body: string) =>
      fetch(`${stack.agent.publicUrl}/`, { method: 'POST', headers: { 'content-type': 'application/didcomm-envelope-enc' }, body })
    expect((await post('not json at all')).status).toBe(400)
    expect((await post(JSON.stringify({ protected: 'x', iv: 'y', ciphertext: 'z', tag: 'w' }))).status).toBe(400)

    const reply = wallet.nextText((m) => m.content === 'echo: still there?')
    await wallet.sendText(walletConnectionId, 'still there?')
    await reply
  })

  it('serves the OpenAPI explorer generated from the same schemas that validate requests', async () => {
    const document = (await (await admin('/api/openapi.json')).json()) as {
      paths: Record<string, unknown>
      components: { schemas: Record<string, unknown> }
    }
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/agent', '/v1/invitation', '/v1/connections', '/v1/connections/{connection_id}', '/v1/message']),
    )
    expect(JSON.stringify(document.paths['/v1/message'])).toContain('"content"')
    const page = await admin('/api')
    expect(page.headers.get('content-type')).toMatch(/text\/html/)
  })

  it('reconnects the tunnel after the worker restarts and keeps chatting', async () => {
    await restartWorker(stack, {
      vars: {
        COMPAT_BASE_URL: llm.url,
        COMPAT_API_KEY: 'test-key',
        COMPAT_MODEL: 'scripted-model',
        AGENT_MEMORY_BACKEND: 'kvstore',
      },
    })
    const reply = wallet.nextText((m) => m.content === 'echo: back again?', 60_000)
    await wallet.sendText(walletConnectionId, 'back again?')
    await reply
    // Memory backend kvstore: the conversation Durable Object's window survived the restart.
    expect(llm.requests.at(-1)!.messages.map((m) => m.content)).toContain('hello, who are you?')
  })

  it('redirects GET /invitation to a page showing a new invitation as a QR code', async () => {
    const redirect = await fetch(`${stack.agent.publicUrl}/invitation`, { redirect: 'manual' })
    expect(redirect.status).toBe(302)
    const location = redirect.headers.get('location')!
    expect(location).toMatch(new RegExp(`^${stack.agent.publicUrl}/qr\\?oob=`))
    const page = await fetch(location)
    expect(page.headers.get('content-type')).toMatch(/text\/html/)
    const html = await page.text()
    expect(html).toContain('<svg')
    expect(html).toContain(location.replace(/&/g, '&#38;'))
  })

  it('the terminal wallet (npm run wallet) shows the greeting that comes as the connection completes, then an answer', async () => {
    const walletData = join(dataDir, 'terminal-wallet.sqlite')
    // the URL `npm start` prints
    const { url } = (await (await admin('/v1/invitation')).json()) as { url: string }
    const child = spawn(process.execPath, ['--import', 'tsx', 'agent-node/src/wallet-peer/main.ts', url, '--data', walletData], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const shown = (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not shown: ${pattern}; output so far:\n${output}`)), 60_000)
        const check = () => {
          if (!pattern.test(output)) return
          clearTimeout(timer)
          child.stdout.off('data', check)
          resolve()
        }
        child.stdout.on('data', check)
        check()
      })
    try {
      await shown(/connected to /)
      // The greeting is sent the moment DID Exchange completes, often before `connect` resolves.
      await shown(new RegExp(greetingTemplate.split('{userName}')[0]!.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      child.stdin.write('from the terminal\n')
      await shown(/echo: from the terminal/)
    } finally {
      child.kill('SIGTERM')
    }
  })
})
