import { resolveAgentPack } from '@parley/shared/agent-pack'
import { describe, expect, it } from 'vitest'
import { guardedFetch, MAX_REDIRECTS, UnsafeUrlError } from '../../src/net/outbound.ts'
import { buildTools } from '../../src/tools/index.ts'
import type { ToolContext } from '../../src/tools/types.ts'

const pack = (yaml: string) => resolveAgentPack({ path: 'agent-pack.yaml', text: yaml }, {}).config

/** A fetch stub answering from `routes` (URL -> response) and recording the calls. */
function stubFetch(routes: Record<string, () => Response>) {
  const calls: { url: string; init?: RequestInit }[] = []
  const fetcher = (async (url: string, init?: RequestInit) => {
    calls.push({ url, init })
    const route = routes[url]
    return route ? route() : new Response('not found', { status: 404 })
  }) as typeof fetch
  return { calls, fetcher }
}

describe('external HTTP tools (tools.dynamicConfig)', () => {
  const dynamicConfig = JSON.stringify([
    {
      name: 'weather',
      description: 'Weather by city',
      endpoint: 'https://api.example.com/w?q={query}',
      method: 'GET',
      authHeader: 'x-api-key',
      authToken: 'k-123',
      requiresAuth: false,
    },
    { name: 'bad name!', description: 'x', endpoint: 'https://x' },
  ])

  it("reads hologram-ai-agent's format and leaves out, with a warning, a tool name models refuse", () => {
    const { tools, warnings } = buildTools(pack(`tools: { dynamicConfig: '${dynamicConfig}' }`))
    expect(tools.map((tool) => [tool.name, tool.policy])).toEqual([['weather', { requiresAuth: false }]])
    expect(warnings).toEqual([
      "tools.dynamicConfig[1].name: 'bad name!' is not a tool name models accept (letters, digits, _ and -, at most 64); tool left out",
    ])
  })

  it('fills {query}, sends the auth header and returns the body', async () => {
    const { tools } = buildTools(pack(`tools: { dynamicConfig: '${dynamicConfig}' }`))
    const { calls, fetcher } = stubFetch({ 'https://api.example.com/w?q=Bogot%C3%A1%20%26%20more': () => new Response('22°C') })
    const context: ToolContext = {
      principal: { roles: [], admin: false },
      integrations: undefined,
      fetch: guardedFetch(undefined, fetcher),
      signal: new AbortController().signal,
    }
    expect(await tools[0]!.execute({ query: 'Bogotá & more' }, context)).toBe('22°C')
    expect(new Headers(calls[0]!.init?.headers).get('x-api-key')).toBe('k-123')
  })

  it('adds the bundled statisticsFetcher when it has an endpoint', () => {
    const { tools } = buildTools(
      pack('tools: { bundled: { statisticsFetcher: { endpoint: "https://stats.example.com/q", requiresAuth: true } } }'),
    )
    expect(tools.map((tool) => [tool.name, tool.policy.requiresAuth])).toEqual([['statistics_fetcher', true]])
    expect(buildTools(pack('tools: { bundled: { statisticsFetcher: { endpoint: "https://s", enabled: false } } }')).tools).toEqual([])
  })
})

describe("the Worker's outbound guard", () => {
  const ok = () => new Response('ok')

  it('refuses loopback, private and link-local hosts unless OUTBOUND_ALLOWED_NETWORKS lists them', async () => {
    const { fetcher } = stubFetch({ 'http://127.0.0.1:8080/x': ok, 'http://10.1.2.3/x': ok })
    const guarded = guardedFetch(undefined, fetcher)
    for (const url of [
      'http://127.0.0.1:8080/x',
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
    ]) {
      await expect(guarded(url)).rejects.toBeInstanceOf(UnsafeUrlError)
    }
    await expect(guarded('file:///etc/passwd')).rejects.toThrow(/protocol must be http/)
    const allowed = guardedFetch('127.0.0.0/8, 10.0.0.0/8', fetcher)
    expect(await (await allowed('http://127.0.0.1:8080/x')).text()).toBe('ok')
    expect(await (await allowed('http://10.1.2.3/x')).text()).toBe('ok')
  })

  it('checks every redirect hop', async () => {
    const { fetcher } = stubFetch({
      'https://public.example.com/go': () => new Response(null, { status: 302, headers: { location: 'http://192.168.1.1/admin' } }),
    })
    await expect(guardedFetch(undefined, fetcher)('https://public.example.com/go')).rejects.toThrow(/192\.168\.1\.1 is a private address/)
  })

  const redirect = (status: number, location: string) => () => new Response(null, { status, headers: { location } })
  const credentials = { authorization: 'Bearer s3cret', 'x-api-key': 'k-123', cookie: 'session=1', accept: 'application/json' }

  it('keeps Authorization and custom headers on a same-origin redirect', async () => {
    const { calls, fetcher } = stubFetch({ 'https://api.example.com/a': redirect(302, '/b'), 'https://api.example.com/b': ok })
    await guardedFetch(undefined, fetcher)('https://api.example.com/a', { headers: credentials })
    expect(calls.map((call) => call.url)).toEqual(['https://api.example.com/a', 'https://api.example.com/b'])
    const headers = new Headers(calls[1]!.init?.headers)
    expect([headers.get('authorization'), headers.get('x-api-key'), headers.get('cookie')]).toEqual(['Bearer s3cret', 'k-123', 'session=1'])
  })

  it('drops Authorization, Cookie and custom auth headers on a cross-origin redirect, and does not restore them on the way back', async () => {
    const { calls, fetcher } = stubFetch({
      'https://api.example.com/a': redirect(302, 'https://evil.example.net/steal'),
      'https://evil.example.net/steal': redirect(307, 'https://api.example.com/c'),
      'https://api.example.com/c': ok,
    })
    await guardedFetch(undefined, fetcher)('https://api.example.com/a', { headers: credentials })
    for (const call of calls.slice(1)) {
      const headers = new Headers(call.init?.headers)
      expect([...headers.keys()], call.url).toEqual(['accept'])
    }
  })

  it('turns a POST into a GET without body or body headers after a 303, and after a 301 or 302', async () => {
    for (const status of [303, 301, 302]) {
      const { calls, fetcher } = stubFetch({
        'https://api.example.com/post': redirect(status, '/result'),
        'https://api.example.com/result': ok,
      })
      await guardedFetch(undefined, fetcher)('https://api.example.com/post', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-language': 'en', authorization: 'Bearer s3cret' },
        body: '{"a":1}',
      })
      const next = calls[1]!.init!
      expect([next.method, next.body], String(status)).toEqual(['GET', undefined])
      const headers = new Headers(next.headers)
      expect([...headers.keys()], String(status)).toEqual(['authorization'])
    }
  })

  it('keeps method, body and headers after a 307 on the same origin', async () => {
    const { calls, fetcher } = stubFetch({ 'https://api.example.com/post': redirect(307, '/again'), 'https://api.example.com/again': ok })
    const headers = { 'content-type': 'application/json', authorization: 'Bearer s3cret' }
    await guardedFetch(undefined, fetcher)('https://api.example.com/post', { method: 'POST', headers, body: '{"a":1}' })
    const next = calls[1]!.init!
    expect([calls[1]!.url, next.method, next.body]).toEqual(['https://api.example.com/again', 'POST', '{"a":1}'])
    expect(Object.fromEntries(new Headers(next.headers))).toEqual(headers)
  })

  it('refuses to re-send a streamed body after a 307', async () => {
    const { fetcher } = stubFetch({ 'https://api.example.com/post': redirect(307, '/again'), 'https://api.example.com/again': ok })
    const body = new ReadableStream({ start: (controller) => controller.close() })
    await expect(
      guardedFetch(undefined, fetcher)('https://api.example.com/post', { method: 'POST', body, duplex: 'half' } as RequestInit),
    ).rejects.toThrow(/streamed body/)
  })

  it(`follows at most ${MAX_REDIRECTS} redirects`, async () => {
    const routes: Record<string, () => Response> = {}
    for (let hop = 0; hop <= MAX_REDIRECTS + 1; hop++) routes[`https://api.example.com/${hop}`] = redirect(302, `/${hop + 1}`)
    const { calls, fetcher } = stubFetch(routes)
    await expect(guardedFetch(undefined, fetcher)('https://api.example.com/0')).rejects.toThrow(`more than ${MAX_REDIRECTS} redirects`)
    expect(calls).toHaveLength(MAX_REDIRECTS + 1)
    const { fetcher: limitFetcher } = stubFetch({ ...routes, [`https://api.example.com/${MAX_REDIRECTS}`]: ok })
    expect(await (await guardedFetch(undefined, limitFetcher)('https://api.example.com/0')).text()).toBe('ok')
  })

  it('checks the hop after a cross-origin 307 too', async () => {
    const { calls, fetcher } = stubFetch({ 'https://public.example.com/go': redirect(307, 'http://[::ffff:127.0.0.1]/admin') })
    await expect(guardedFetch(undefined, fetcher)('https://public.example.com/go', { method: 'POST', body: 'x' })).rejects.toBeInstanceOf(
      UnsafeUrlError,
    )
    expect(calls).toHaveLength(1)
  })

  it('names a bad OUTBOUND_ALLOWED_NETWORKS entry', () => {
    expect(() => guardedFetch('10.0.0.0/8,nope')).toThrow(/'nope' is not a CIDR range/)
  })
})
