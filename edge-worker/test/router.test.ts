import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { TEST_TUNNEL_SECRET } from './support/constants.ts'

describe('router', () => {
  it('answers GET /health with {ok:true}', async () => {
    const response = await exports.default.fetch(new Request('http://worker/health'))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
  })

  it('answers unknown paths with 404 JSON', async () => {
    const response = await exports.default.fetch(new Request('http://worker/nowhere'))
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'not-found' })
  })

  it('asks for a WebSocket upgrade on /tunnel', async () => {
    const response = await exports.default.fetch(new Request('http://worker/tunnel'))
    expect(response.status).toBe(426)
  })

  it('has no test hooks in the production entry, even with the tunnel secret', async () => {
    const response = await exports.default.fetch(
      new Request(`http://worker/test-hooks/conversations/${crypto.randomUUID()}/reset`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_TUNNEL_SECRET}` },
      }),
    )
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'not-found' })
  })
})
