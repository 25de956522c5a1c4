import { env, exports } from 'cloudflare:workers'
import { HANDSHAKE_HEADERS } from '@parley/shared/tunnel'
import { describe, expect, it } from 'vitest'
import { CLOSE_REPLACED } from '../src/tunnel-gateway/index.ts'
import { signedHeaders, TestAgent, tunnelRequest } from './support/agent.ts'

async function refusal(headers: Record<string, string>) {
  const response = await exports.default.fetch(tunnelRequest(headers))
  return { status: response.status, body: await response.json(), webSocket: response.webSocket }
}

describe('tunnel handshake', () => {
  it('accepts a correctly signed, fresh handshake', async () => {
    const response = await exports.default.fetch(tunnelRequest(await signedHeaders()))
    expect(response.status).toBe(101)
    expect(response.webSocket).not.toBeNull()
    response.webSocket?.accept()
    response.webSocket?.close(1000, 'done')
  })

  it('refuses missing headers', async () => {
    expect(await refusal({})).toEqual({ status: 401, body: { error: 'unauthorized', reason: 'missing-headers' }, webSocket: null })
    const { [HANDSHAKE_HEADERS.signature]: _, ...unsigned } = await signedHeaders()
    expect((await refusal(unsigned)).body).toEqual({ error: 'unauthorized', reason: 'missing-headers' })
  })

  it('refuses a handshake signed with another secret', async () => {
    expect(await refusal(await signedHeaders('not-the-secret'))).toEqual({
      status: 401,
      body: { error: 'unauthorized', reason: 'bad-signature' },
      webSocket: null,
    })
  })

  it('refuses a stale timestamp', async () => {
    const tenMinutesAgo = Date.now() - 10 * 60_000
    expect(await refusal(await signedHeaders(undefined, tenMinutesAgo))).toEqual({
      status: 401,
      body: { error: 'unauthorized', reason: 'stale-timestamp' },
      webSocket: null,
    })
  })

  it('refuses a nonce that was used before', async () => {
    const headers = await signedHeaders()
    const first = await exports.default.fetch(tunnelRequest(headers))
    expect(first.status).toBe(101)
    first.webSocket?.accept()
    first.webSocket?.close(1000, 'done')
    expect(await refusal(headers)).toEqual({ status: 401, body: { error: 'unauthorized', reason: 'replayed-nonce' }, webSocket: null })
  })

  it('refuses every agent with 503 when TUNNEL_SECRET is not configured', async () => {
    const response = await env.UNCONFIGURED.fetch(tunnelRequest(await signedHeaders()))
    expect(response.status).toBe(503)
    expect(await response.json()).toEqual({ error: 'tunnel-disabled', reason: 'TUNNEL_SECRET is not configured' })
  })

  it('keeps one agent socket: a new authenticated socket replaces the old one', async () => {
    const first = await TestAgent.connect()
    const second = await TestAgent.connect()
    const closed = await first.closed
    expect(closed.code).toBe(CLOSE_REPLACED)
    await second.close()
  })
})
