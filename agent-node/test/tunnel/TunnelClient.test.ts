/**
 * TunnelClient against a real WebSocket server on loopback that checks the shared HMAC
 * handshake the way the worker does. The message service is a recording stand-in (unit scope).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer, type WebSocket } from 'ws'
import {
  MAX_EVENT_BYTES,
  replacedCloseReason,
  SendMessageBody,
  TUNNEL_CLOSE_REPLACED,
  verifyTunnelHandshake,
  type CommandFrame,
} from '@parley/shared'
import { createLogger } from '../../src/logging/index.ts'
import type { IdempotencyKey, MessageService } from '../../src/messaging/MessageService.ts'
import type { PublishedEvent } from '../../src/events/publisher.ts'
import { TunnelClient } from '../../src/tunnel/TunnelClient.ts'
import { receives } from '../../src/events/delivery/subscriber.ts'
import { captureLogs } from '../support/log-lines.ts'

const SECRET = 'a-tunnel-secret-of-enough-length'
const CONNECTION = '11111111-1111-4111-8111-111111111111'

interface FakeWorker {
  url: string
  sockets: WebSocket[]
  frames: unknown[]
  refusals: string[]
  /** Nonce of each accepted handshake, in order (one per socket). */
  nonces: string[]
  nextSocket(): Promise<WebSocket>
  close(): Promise<void>
}

async function startFakeWorker(secret = SECRET): Promise<FakeWorker> {
  const sockets: WebSocket[] = []
  const frames: unknown[] = []
  const refusals: string[] = []
  const nonces: string[] = []
  const waiting: ((socket: WebSocket) => void)[] = []
  const wss = new WebSocketServer({ noServer: true })
  const server: Server = createServer()
  server.on('upgrade', async (request: IncomingMessage, socket, head) => {
    const headers = new Headers(Object.entries(request.headers).map(([k, v]) => [k, String(v)]))
    const verdict = await verifyTunnelHandshake(secret, headers)
    if (!verdict.ok) {
      refusals.push(verdict.reason)
      socket.end(`HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{"reason":"${verdict.reason}"}`)
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.push(ws)
      nonces.push(verdict.handshake.nonce)
      ws.on('message', (data) => frames.push(JSON.parse(data.toString())))
      waiting.shift()?.(ws)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `ws://127.0.0.1:${port}/tunnel`,
    sockets,
    frames,
    refusals,
    nonces,
    nextSocket: () => new Promise((resolve) => waiting.push(resolve)),
    close: async () => {
      for (const ws of wss.clients) ws.terminate()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

function recordingMessages() {
  const sent: SendMessageBody[] = []
  const keys: IdempotencyKey[] = []
  const service = {
    async send(body: SendMessageBody, key: IdempotencyKey) {
      sent.push(body)
      keys.push(key)
      return { id: `00000000-0000-4000-8000-${String(sent.length).padStart(12, '0')}`, replayed: false }
    },
  } as unknown as MessageService
  return { sent, keys, service }
}

const event = (seq: number): PublishedEvent => ({
  id: crypto.randomUUID(),
  connectionId: CONNECTION,
  seq,
  position: seq,
  createdAt: Date.now(),
  event: { type: 'connection-state-updated', connectionId: CONNECTION, state: 'completed' },
})
const never = new AbortController().signal

/**
 * Sends the gateway's takeover close on `socket` as the gateway does, with a peer that never
 * closes its TCP side (workerd keeps it open): a close frame 4000 naming the replacing handshake's
 * nonce, then nothing. Returns the raw TCP socket (destroy it to end the connection).
 */
function closeReplaced(socket: WebSocket, replacingNonce: string): Socket {
  const raw = (socket as unknown as { _socket: Socket })._socket
  for (const event of ['data', 'end']) raw.removeAllListeners(event)
  const reason = Buffer.from(replacedCloseReason(replacingNonce))
  raw.write(Buffer.concat([Buffer.from([0x88, 2 + reason.length, TUNNEL_CLOSE_REPLACED >> 8, TUNNEL_CLOSE_REPLACED & 0xff]), reason]))
  return raw
}

const until = async (condition: () => boolean, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('TunnelClient', () => {
  const cleanup: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn()
  })

  it('takes every agent event but delivery states', () => {
    const client = new TunnelClient({ url: 'ws://127.0.0.1:1/tunnel', secret: SECRET }, recordingMessages().service, createLogger('silent'))
    const state: PublishedEvent = {
      ...event(2),
      event: {
        type: 'message-state-updated',
        connectionId: CONNECTION,
        messageId: crypto.randomUUID(),
        state: 'sent',
        timestamp: Math.floor(Date.now() / 1000),
      },
    }
    expect(receives(client, event(1))).toBe(true)
    expect(receives(client, state)).toBe(false)
  })

  async function setup(secret = SECRET, options: { replacedHoldOffMs?: number; logger?: ReturnType<typeof createLogger> } = {}) {
    const worker = await startFakeWorker()
    const messages = recordingMessages()
    const client = new TunnelClient(
      { url: worker.url, secret, minDelayMs: 20, maxDelayMs: 100, replacedHoldOffMs: options.replacedHoldOffMs },
      messages.service,
      options.logger ?? createLogger('silent'),
    )
    cleanup.push(async () => {
      await client.stop()
      await worker.close()
    })
    return { worker, client, messages }
  }

  it('authenticates with the handshake and forwards events in order', async () => {
    const { worker, client } = await setup()
    const socket = worker.nextSocket()
    client.start()
    await socket
    void client.deliver(event(1), never)
    void client.deliver(event(2), never)
    await until(() => worker.frames.length === 2)
    expect(worker.frames.map((f) => (f as { seq: number }).seq)).toEqual([1, 2])
    expect(worker.refusals).toEqual([])
  })

  it('keeps retrying when the worker refuses a wrong secret', async () => {
    const { worker, client } = await setup('not-the-secret-but-long-enough')
    client.start()
    await until(() => worker.refusals.length >= 2)
    expect(new Set(worker.refusals)).toEqual(new Set(['bad-signature']))
    expect(client.connected).toBe(false)
  })

  it('settles an attempt when the ack comes, and as a retry when the socket drops first; reconnects', async () => {
    const { worker, client } = await setup()
    const first = worker.nextSocket()
    client.start()
    const socket = await first
    const events = [event(1), event(2)]
    const attempts = events.map((e) => client.deliver(e, never))
    await until(() => worker.frames.length === 2)
    socket.send(JSON.stringify({ kind: 'ack', id: events[0]!.id }))
    expect(await attempts[0]).toEqual({ result: 'acknowledged' })
    expect(client.pendingCount).toBe(1)

    const second = worker.nextSocket()
    socket.terminate()
    expect(await attempts[1]).toMatchObject({ result: 'retry' })
    await second
    const again = client.deliver(events[1]!, never)
    await until(() => worker.frames.length === 3)
    worker.sockets[1]!.send(JSON.stringify({ kind: 'ack', id: events[1]!.id }))
    expect(await again).toEqual({ result: 'acknowledged' })
    expect(worker.frames.map((f) => (f as { seq: number }).seq)).toEqual([1, 2, 2])
  })

  it('settles an attempt as rejected (dead letter) when the worker answers reject, or the event is too large to send', async () => {
    const { worker, client } = await setup()
    const opened = worker.nextSocket()
    client.start()
    const socket = await opened
    const refused = event(1)
    const attempt = client.deliver(refused, never)
    await until(() => worker.frames.length === 1)
    socket.send(JSON.stringify({ kind: 'reject', id: refused.id, reason: 'event of 2000000 bytes' }))
    expect(await attempt).toEqual({ result: 'rejected', error: 'rejected by the worker: event of 2000000 bytes' })

    const huge: PublishedEvent = {
      ...event(2),
      event: {
        type: 'message-received',
        message: { type: 'text', id: 'm1', connectionId: CONNECTION, timestamp: 0, threadId: null, content: 'x'.repeat(MAX_EVENT_BYTES) },
      },
    }
    expect(await client.deliver(huge, never)).toMatchObject({
      result: 'rejected',
      error: expect.stringMatching(/more than the 1000000 the tunnel carries/),
    })
    expect(worker.frames).toHaveLength(1) // never sent
  })

  it('holds an attempt until the tunnel opens, and gives it up when the engine aborts', async () => {
    const { worker, client } = await setup()
    const aborted = new AbortController()
    const abandoned = client.deliver(event(1), aborted.signal)
    aborted.abort()
    expect(await abandoned).toMatchObject({ result: 'retry' })
    const waiting = client.deliver(event(2), never)
    const opened = worker.nextSocket()
    client.start()
    const socket = await opened
    await until(() => worker.frames.length === 1)
    socket.send(JSON.stringify({ kind: 'ack', id: (worker.frames[0] as { id: string }).id }))
    expect(await waiting).toEqual({ result: 'acknowledged' })
    expect((worker.frames[0] as { seq: number }).seq).toBe(2)
  })

  it("runs each command with its idempotency key (scope tunnel) and answers with the command's id", async () => {
    const { worker, client, messages } = await setup()
    const opened = worker.nextSocket()
    client.start()
    const socket = await opened
    const ids = [crypto.randomUUID(), crypto.randomUUID()]
    for (const id of ids) {
      const frame: CommandFrame = {
        kind: 'command',
        id,
        idempotencyKey: 'reply:event-1',
        command: { name: 'send-message', message: { type: 'text', connectionId: CONNECTION, content: 'hi' } },
      }
      socket.send(JSON.stringify(frame))
    }
    await until(() => worker.frames.length === 2)
    expect(messages.keys).toEqual([
      { scope: 'tunnel', key: 'reply:event-1' },
      { scope: 'tunnel', key: 'reply:event-1' },
    ])
    const results = worker.frames as { kind: string; id: string; ok: boolean }[]
    expect(results.map((r) => [r.kind, r.ok])).toEqual([
      ['command-result', true],
      ['command-result', true],
    ])
    expect(new Set(results.map((r) => r.id))).toEqual(new Set(ids))
  })

  it('carries every message type of POST /v1/message in send-message, validated by the same schema', async () => {
    const { worker, client, messages } = await setup()
    const opened = worker.nextSocket()
    client.start()
    const socket = await opened
    const bodies: SendMessageBody[] = [
      {
        type: 'menu-display',
        connectionId: CONNECTION,
        prompt: 'Pick one',
        menuItems: [
          { id: 'a', text: 'A' },
          { id: 'b', text: 'B' },
        ],
      },
      { type: 'invitation', connectionId: CONNECTION, url: 'https://example.org/invitation?oob=abc' },
      { type: 'contextual-menu-update', connectionId: CONNECTION, title: 'Menu', options: [{ id: 'login', title: 'Log in' }] },
    ]
    const frame = (message: unknown) =>
      JSON.stringify({
        kind: 'command',
        id: crypto.randomUUID(),
        idempotencyKey: `k:${crypto.randomUUID()}`,
        command: { name: 'send-message', message },
      })
    for (const body of bodies) socket.send(frame(body))
    // A menu with duplicate item ids fails the admin API's schema: dropped, never run.
    socket.send(
      frame({
        type: 'menu-display',
        connectionId: CONNECTION,
        prompt: 'x',
        menuItems: [
          { id: 'a', text: 'A' },
          { id: 'a', text: 'B' },
        ],
      }),
    )
    socket.send(frame({ type: 'text', connectionId: CONNECTION, content: 'last' }))
    await until(() => messages.sent.length === 4)
    expect(messages.sent.map((body) => body.type)).toEqual(['menu-display', 'invitation', 'contextual-menu-update', 'text'])
    expect(messages.sent.slice(0, 3)).toEqual(bodies.map((body) => SendMessageBody.parse(body)))
  })

  it('runs the commands of one connection in the order their frames came, even when the first is slow', async () => {
    const worker = await startFakeWorker()
    const started: string[] = []
    const finished: string[] = []
    const service = {
      async send(body: SendMessageBody) {
        const content = body.type === 'text' ? body.content : body.type
        started.push(content)
        if (content === 'greeting') await new Promise((resolve) => setTimeout(resolve, 100))
        finished.push(content)
        return { id: crypto.randomUUID() }
      },
    } as unknown as MessageService
    const client = new TunnelClient({ url: worker.url, secret: SECRET, minDelayMs: 20 }, service, createLogger('silent'))
    cleanup.push(async () => {
      await client.stop()
      await worker.close()
    })
    const opened = worker.nextSocket()
    client.start()
    const socket = await opened
    const command = (content: string, connectionId = CONNECTION) =>
      JSON.stringify({
        kind: 'command',
        id: crypto.randomUUID(),
        idempotencyKey: `k:${crypto.randomUUID()}`,
        command: { name: 'send-message', message: { type: 'text', connectionId, content } },
      })
    socket.send(command('greeting'))
    socket.send(command('prompt'))
    socket.send(command('elsewhere', '22222222-2222-4222-8222-222222222222'))
    await until(() => finished.length === 3)
    expect(finished.indexOf('greeting')).toBeLessThan(finished.indexOf('prompt'))
    expect(started.indexOf('prompt')).toBeGreaterThan(finished.indexOf('greeting'))
    // another connection did not wait for the slow one
    expect(finished.indexOf('elsewhere')).toBeLessThan(finished.indexOf('greeting'))
  })

  it('does not remember a failed command: a retry with the same key runs again', async () => {
    const worker = await startFakeWorker()
    let calls = 0
    const service = {
      async send() {
        calls++
        if (calls === 1) throw new Error('connection has not completed DID Exchange')
        return { id: '00000000-0000-4000-8000-000000000001' }
      },
    } as unknown as MessageService
    const client = new TunnelClient({ url: worker.url, secret: SECRET, minDelayMs: 20 }, service, createLogger('silent'))
    cleanup.push(async () => {
      await client.stop()
      await worker.close()
    })
    const opened = worker.nextSocket()
    client.start()
    const socket = await opened
    const command = (): CommandFrame => ({
      kind: 'command',
      id: crypto.randomUUID(),
      idempotencyKey: 'greeting:1',
      command: { name: 'send-message', message: { type: 'text', connectionId: CONNECTION, content: 'hello' } },
    })
    socket.send(JSON.stringify(command()))
    await until(() => worker.frames.length === 1)
    socket.send(JSON.stringify(command()))
    await until(() => worker.frames.length === 2)
    expect((worker.frames as { ok: boolean }[]).map((f) => f.ok)).toEqual([false, true])
    expect(calls).toBe(2)
  })

  it('drops malformed frames and keeps the socket', async () => {
    const { worker, client, messages } = await setup()
    const opened = worker.nextSocket()
    client.start()
    const socket = await opened
    socket.send('{ not json')
    socket.send(JSON.stringify({ kind: 'command', id: 'not-a-uuid' }))
    socket.send(
      JSON.stringify({
        kind: 'command',
        id: crypto.randomUUID(),
        idempotencyKey: 'k',
        command: { name: 'send-message', message: { type: 'text', connectionId: CONNECTION, content: 'after garbage' } },
      }),
    )
    await until(() => messages.sent.length === 1)
    expect(client.connected).toBe(true)
    expect(worker.sockets).toHaveLength(1)
  })

  it('notices a takeover (close 4000) at once, says so, and redials only after the hold-off', async () => {
    const { logger, lines } = captureLogs('info')
    const { worker, client } = await setup(SECRET, { replacedHoldOffMs: 300, logger })
    const opened = worker.nextSocket()
    client.start()
    const socket = await opened
    // Replaced by another client's handshake; the client must not wait for ws's 30 s close timeout.
    const raw = closeReplaced(socket, 'f'.repeat(32))
    await until(() => client.replaced)
    expect(client.connected).toBe(false)
    const notice = lines.find((line) => /tunnel taken over/.test(line.msg))
    expect(notice?.redialInMs).toBe(300)
    raw.destroy()
    const again = worker.nextSocket()
    await again
    await until(() => client.connected)
    expect(client.replaced).toBe(false)
    expect(worker.sockets).toHaveLength(2)
  })

  it('redials at once, without a hold-off, when its own late handshake replaced its socket', async () => {
    const { logger, lines } = captureLogs('info')
    const { worker, client } = await setup(SECRET, { replacedHoldOffMs: 60_000, logger })
    const opened = worker.nextSocket()
    client.start()
    const socket = await opened
    // A proxy delivered a handshake this client had given up on after its newer one: the gateway
    // replaced the newer socket and names that handshake. (Here: the client's own first nonce.)
    const again = worker.nextSocket()
    closeReplaced(socket, worker.nonces[0]!).destroy()
    await again
    await until(() => client.connected)
    expect(client.replaced).toBe(false)
    expect(lines.some((line) => /arrived late/.test(line.msg))).toBe(true)
    expect(lines.some((line) => /tunnel taken over/.test(line.msg))).toBe(false)
  })
})
