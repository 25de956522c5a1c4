import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OutboundGuard, UnsafeUrlError, parseNetworks } from '../../src/http/outbound-guard.ts'

function listenOn(host: string, handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler)
  return new Promise((resolve) => server.listen(0, host, () => resolve(server)))
}
const portOf = (server: Server) => (server.address() as AddressInfo).port

describe('OutboundGuard.refusal', () => {
  const guard = new OutboundGuard()
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::',
    '::7f00:1',
    '::a00:1',
    '::808:808',
  ])('refuses %s', (address) => expect(guard.refusal(address)).toMatch(/not in OUTBOUND_ALLOWED_NETWORKS/))
  it.each(['8.8.8.8', '93.184.216.34', '2001:4860:4860::8888'])('allows public %s', (address) =>
    expect(guard.refusal(address)).toBeUndefined(),
  )
  it('allows a private address inside an allow-listed network, and only there', () => {
    const allowing = new OutboundGuard(['127.0.0.0/8', '10.1.0.0/16'])
    expect(allowing.refusal('127.0.0.9')).toBeUndefined()
    expect(allowing.refusal('10.1.200.1')).toBeUndefined()
    expect(allowing.refusal('10.2.0.1')).toBeDefined()
    expect(allowing.refusal('::1')).toBeDefined()
  })
  it('names a malformed allow-list entry', () => {
    expect(() => parseNetworks(['10.0.0.0/8', 'not-a-network'])).toThrow(/'not-a-network' is not a CIDR range/)
  })
})

describe('OutboundGuard.check', () => {
  const guard = new OutboundGuard()
  it('refuses a loopback host by name and by literal', async () => {
    await expect(guard.check('http://localhost:9/cb')).rejects.toThrow(UnsafeUrlError)
    await expect(guard.check('http://[::1]:9/cb')).rejects.toThrow(/loopback/)
    await expect(guard.check('http://127.0.0.1:9/cb')).rejects.toThrow(/loopback/)
  })
  it('refuses a wrong protocol, a relative URL and a host that does not resolve', async () => {
    await expect(guard.check('ftp://example.com/x')).rejects.toThrow(/protocol must be one of http:, https:/)
    await expect(guard.check('https://example.com/x', 'websocket')).rejects.toThrow(/protocol must be one of ws:, wss:/)
    await expect(guard.check('/relative')).rejects.toThrow(/not an absolute URL/)
    await expect(guard.check('http://no-such-host.invalid/x')).rejects.toThrow(/does not resolve/)
  })
  it('refuses a URL carrying a user name or password, without repeating the password', async () => {
    const refused = guard.check('https://alice:s3cret@8.8.8.8/cb')
    await expect(refused).rejects.toThrow(/must not carry a user name or password/)
    await expect(refused).rejects.not.toThrow(/s3cret/)
    await expect(guard.check('https://alice@8.8.8.8/cb')).rejects.toThrow(UnsafeUrlError)
  })
  it('accepts a public literal address', async () => {
    await expect(guard.check('https://8.8.8.8/cb')).resolves.toBeUndefined()
  })
})

describe('OutboundGuard.fetch on loopback servers', () => {
  let target: Server
  let redirector: Server
  beforeAll(async () => {
    target = await listenOn('127.0.0.1', (_req, res) => res.end('inside'))
    redirector = await listenOn('127.0.0.2', (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${portOf(target)}/` }).end()
    })
  })
  afterAll(async () => {
    await new Promise((resolve) => target.close(resolve))
    await new Promise((resolve) => redirector.close(resolve))
  })

  it('refuses to connect to a loopback address that is not allow-listed', async () => {
    const guard = new OutboundGuard()
    const failure = await guard.fetch(`http://127.0.0.1:${portOf(target)}/`).catch((error: unknown) => error)
    expect((failure as Error).cause).toBeInstanceOf(UnsafeUrlError)
    await guard.close()
  })
  it('refuses a name that resolves to loopback at connect time', async () => {
    const guard = new OutboundGuard()
    const failure = await guard.fetch(`http://localhost:${portOf(target)}/`).catch((error: unknown) => error)
    expect((failure as Error).cause).toBeInstanceOf(UnsafeUrlError)
    await guard.close()
  })
  it('reaches an allow-listed address', async () => {
    const guard = new OutboundGuard(['127.0.0.1/32'])
    const response = await guard.fetch(`http://127.0.0.1:${portOf(target)}/`)
    expect(await response.text()).toBe('inside')
    await guard.close()
  })
  it('does not follow a redirect from an allowed address into a refused one', async () => {
    const guard = new OutboundGuard(['127.0.0.2/32'])
    const failure = await guard.fetch(`http://127.0.0.2:${portOf(redirector)}/`).catch((error: unknown) => error)
    expect((failure as Error).cause).toBeInstanceOf(UnsafeUrlError)
    await guard.close()
  })
  it('gives ws clients a lookup that refuses loopback names', async () => {
    const guard = new OutboundGuard()
    const error = await new Promise<Error | null>((resolve) => guard.lookup('localhost', {}, (e) => resolve(e)))
    expect(error).toBeInstanceOf(UnsafeUrlError)
  })
})
