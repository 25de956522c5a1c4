/**
 * Optional admin authentication (ADMIN_API_TOKENS): with tokens set, the admin API, `/metrics`
 * and the `/v1/events` WebSocket need `Authorization: Bearer <token>` (any of the tokens, for
 * rotation) and answer 401 with the error envelope otherwise; the health probes and the API
 * explorer page stay open. WebSocket event subscriptions are dialled with a handshake signed like
 * webhook POSTs (EVENTS_SIGNING_SECRET), checked with the independent `standardwebhooks` package.
 */
import { randomBytes } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { Webhook } from 'standardwebhooks'
import { afterAll, describe, expect, it } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { ConfigError, loadConfig } from '../../src/config/index.ts'
import { StreamEventFrame } from '../../src/events/websocket/frames.ts'
import { useTestAgentNode } from '../support/agent-node.ts'

const TOKEN_A = randomBytes(24).toString('base64url')
const TOKEN_B = randomBytes(24).toString('base64url')
const SECRET = `whsec_${randomBytes(32).toString('base64')}`

/** Opens `/v1/events` with `headers`. @returns 'open', or the HTTP status the upgrade was refused with. */
function openStream(adminPort: number, headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${adminPort}/v1/events`, { headers })
    socket.once('open', () => {
      socket.close()
      resolve('open')
    })
    socket.once('unexpected-response', (_request, response) => {
      response.resume()
      resolve(response.statusCode!)
    })
    socket.once('error', reject)
  })
}

describe('admin API with ADMIN_API_TOKENS', () => {
  const started = useTestAgentNode('sqlite', {
    ADMIN_API_TOKENS: `${TOKEN_A}, ${TOKEN_B}`,
    ENABLE_PUBLIC_API_EXPLORER: 'true',
    EVENTS_SIGNING_SECRET: SECRET,
  })
  const get = (path: string, token?: string) =>
    fetch(`${started.agent.adminUrl}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} })

  it('refuses requests without an accepted bearer token with 401 and the error envelope', async () => {
    for (const token of [undefined, 'not-a-configured-token-at-all', `${TOKEN_A}x`]) {
      const response = await get('/v1/agent', token)
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="parley-admin"')
      expect(await response.json()).toMatchObject({ error: 'unauthorized' })
    }
    expect((await get('/metrics')).status).toBe(401)
    expect(
      (await fetch(`${started.agent.adminUrl}/v1/message`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(401)
  })

  it('accepts every configured token', async () => {
    expect((await get('/v1/agent', TOKEN_A)).status).toBe(200)
    expect((await get('/v1/agent', TOKEN_B)).status).toBe(200)
    expect((await get('/metrics', TOKEN_B)).status).toBe(200)
  })

  it('keeps the health probes and the explorer page open, its document declaring bearer auth', async () => {
    for (const path of ['/healthz', '/readyz', '/api', '/api/openapi.json']) expect((await get(path)).status, path).toBe(200)
    expect(await (await get('/api/openapi.json')).json()).toMatchObject({
      security: [{ bearerAuth: [] }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    })
  })

  it('guards the /v1/events WebSocket the same way', async () => {
    const { adminPort } = started.agent.node
    expect(await openStream(adminPort, {})).toBe(401)
    expect(await openStream(adminPort, { authorization: 'Bearer wrong-token-of-some-length' })).toBe(401)
    expect(await openStream(adminPort, { authorization: `Bearer ${TOKEN_A}` })).toBe('open')
  })

  describe('a WebSocket event subscription', () => {
    const handshakes: IncomingHttpHeaders[] = []
    const frames: StreamEventFrame[] = []
    // the subscriber accepts only sockets whose handshake verifies with the shared secret
    const server = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: ({ req }, accept) => {
        handshakes.push(req.headers)
        try {
          new Webhook(SECRET).verify(JSON.stringify(url()), req.headers as Record<string, string>)
          accept(true)
        } catch {
          accept(false, 401)
        }
      },
    })
    server.on('connection', (socket) =>
      socket.on('message', (data) => {
        const frame = StreamEventFrame.parse(JSON.parse(data.toString()))
        frames.push(frame)
        socket.send(JSON.stringify({ kind: 'ack', id: frame.id }))
      }),
    )
    const url = () => `ws://127.0.0.1:${(server.address() as { port: number }).port}/events`
    afterAll(
      () =>
        new Promise<void>((resolve) => {
          for (const client of server.clients) client.terminate()
          server.close(() => resolve())
        }),
    )

    it('is dialled with a handshake signed with EVENTS_SIGNING_SECRET', async () => {
      const created = await fetch(`${started.agent.adminUrl}/v1/event-subscriptions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN_A}` },
        body: JSON.stringify({ url: url() }),
      })
      expect(created.status).toBe(201)
      expect(await created.json()).toMatchObject({ delivery: 'websocket' })
      const connectionId = '12121212-1212-4212-8212-121212121212'
      started.agent.node.events.publish({
        type: 'connection-state-updated',
        connectionId,
        invitationId: '34343434-3434-4434-8434-343434343434',
        state: 'completed',
      })
      for (let i = 0; i < 200 && frames.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25))
      expect(frames.map((f) => f.connectionId)).toEqual([connectionId])
      expect(handshakes[0]).toMatchObject({
        'webhook-id': expect.any(String),
        'webhook-timestamp': expect.stringMatching(/^\d+$/),
        'webhook-signature': expect.stringMatching(/^v1,/),
      })
      expect(() =>
        new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(JSON.stringify(url()), handshakes[0] as Record<string, string>),
      ).toThrow()
    })
  })
})

describe('ADMIN_API_TOKENS configuration', () => {
  it('refuses a token shorter than 22 characters, naming the variable', () => {
    expect(() => loadConfig({ ADMIN_API_TOKENS: `${TOKEN_A},short` })).toThrow(ConfigError)
    expect(() => loadConfig({ ADMIN_API_TOKENS: `${TOKEN_A},short` })).toThrow(
      /ADMIN_API_TOKENS: each token must be at least 22 characters/,
    )
  })
})
