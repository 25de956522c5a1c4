/**
 * The admin API's guards against browsers and oversized input, on an in-process agent-node:
 * Host and Origin allow-lists on requests and on `/v1/events` upgrades (DNS rebinding, a web page
 * reading the event stream), the body size limit (413), JSON nesting depth and NUL characters
 * (400 naming the path). Every refusal is the admin error envelope.
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'

const CONNECTION = '11111111-1111-4111-8111-111111111111'
const CONTROLLER_ORIGIN = 'http://controller.example:8080'

interface RawAnswer {
  status: number
  json: { error: string; message: string; issues?: Array<{ field: string; message: string }> }
}

describe('admin API guards', () => {
  let agent: TestAgentNode
  let port: number

  beforeAll(async () => {
    agent = await startTestAgentNode(
      { ADMIN_ALLOWED_ORIGINS: CONTROLLER_ORIGIN, ADMIN_MAX_BODY_BYTES: String(64 * 1024) },
      { label: 'admin-guard' },
    )
    port = agent.node.adminPort
  }, 120_000)
  afterAll(() => agent?.close())

  /** One admin request with exactly these headers (fetch would not let us set Host). */
  const raw = (path: string, headers: Record<string, string>, body?: string | Buffer[]) =>
    new Promise<RawAnswer>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path, method: body === undefined ? 'GET' : 'POST', headers: { host: `127.0.0.1:${port}`, ...headers } },
        (response) => {
          let text = ''
          response.on('data', (chunk: Buffer) => (text += chunk.toString()))
          response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }))
        },
      )
      req.on('error', reject)
      if (Array.isArray(body)) for (const chunk of body) req.write(chunk)
      else if (body !== undefined) req.write(body)
      req.end()
    })

  /** Opens `/v1/events` with `headers`; resolves with 101 or the refusal's status. */
  const upgrade = (headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/events`, { headers })
      ws.on('open', () => {
        ws.close()
        resolve(101)
      })
      ws.on('unexpected-response', (_request, response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      })
      ws.on('error', reject)
    })

  it('refuses a Host that is not an admin host (DNS rebinding) with 403', async () => {
    const answer = await raw('/v1/agent', { host: `rebind.attacker.example:${port}` })
    expect(answer.status).toBe(403)
    expect(answer.json.error).toBe('forbidden_host')
  })

  it('serves loopback names and programs that send no Origin', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect((await raw('/v1/agent', { host })).status, host).toBe(200)
    }
  })

  it('refuses a cross-origin browser request with 403, serves same-origin and allowed origins', async () => {
    const body = JSON.stringify({ connectionId: CONNECTION, type: 'text', content: 'hi' })
    const json = { 'content-type': 'application/json' }
    const crossOrigin = await raw('/v1/message', { ...json, origin: 'https://evil.example' }, body)
    expect(crossOrigin.status).toBe(403)
    expect(crossOrigin.json.error).toBe('forbidden_origin')
    expect((await raw('/v1/agent', { origin: `http://127.0.0.1:${port}` })).status).toBe(200)
    expect((await raw('/v1/agent', { origin: CONTROLLER_ORIGIN })).status).toBe(200)
  })

  it('refuses /v1/events upgrades from another Origin or Host with 403, opens allowed ones', async () => {
    expect(await upgrade({ origin: 'https://evil.example' })).toBe(403)
    expect(await upgrade({ host: `rebind.attacker.example:${port}` })).toBe(403)
    expect(await upgrade({ origin: CONTROLLER_ORIGIN })).toBe(101)
    expect(await upgrade({})).toBe(101)
  })

  it('answers 413 with the error envelope to a body over ADMIN_MAX_BODY_BYTES, with or without Content-Length', async () => {
    const big = JSON.stringify({ connectionId: CONNECTION, type: 'text', content: 'x'.repeat(100 * 1024) })
    const sized = await raw('/v1/message', { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) }, big)
    expect(sized.status).toBe(413)
    expect(sized.json.error).toBe('payload_too_large')
    const chunked = await raw('/v1/message', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, [
      Buffer.from(big.slice(0, 50_000)),
      Buffer.from(big.slice(50_000)),
    ])
    expect(chunked.status).toBe(413)
  })

  it('refuses JSON nested 10,000 deep with 400 naming the path', async () => {
    const deep = `{"connectionId":"${CONNECTION}","type":"call-offer","parameters":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`
    const response = await agent.admin('/v1/message', { rawBody: deep })
    const error = (await response.json()) as RawAnswer['json']
    expect(response.status).toBe(400)
    expect(error.error).toBe('validation_error')
    expect(error.issues?.[0]?.field).toMatch(/^parameters\.a\.a/)
    expect(error.issues?.[0]?.message).toMatch(/nested deeper than 32 levels/)
  })

  it('refuses NUL characters in strings and keys with 400 naming the path', async () => {
    const inText = await agent.postMessage({ connectionId: CONNECTION, type: 'text', content: 'a\u0000b' })
    expect(inText.status).toBe(400)
    expect(((await inText.json()) as RawAnswer['json']).issues?.[0]?.field).toBe('content')
    const inKey = await agent.postMessage({ connectionId: CONNECTION, type: 'call-offer', parameters: { 'x\u0000': 1 } })
    expect(inKey.status).toBe(400)
    expect(((await inKey.json()) as RawAnswer['json']).issues?.[0]?.message).toMatch(/NUL/)
  })
})
