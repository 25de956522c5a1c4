import { resolveAgentPack } from '@parley/shared/agent-pack'
import { describe, expect, it } from 'vitest'
import { guardedFetch, UnsafeUrlError } from '../../src/net/outbound.ts'
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

  it('names a bad OUTBOUND_ALLOWED_NETWORKS entry', () => {
    expect(() => guardedFetch('10.0.0.0/8,nope')).toThrow(/'nope' is not a CIDR range/)
  })
})
