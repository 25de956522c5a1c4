/**
 * Inputs of the admin API that make agent-node fetch a URL go through the outbound guard: an
 * `invitation` message's `url` (Credo fetches it to parse it) and a did:web credential definition
 * id (its DID document and object are fetched). A real agent-node that allows no private network
 * (OUTBOUND_ALLOWED_NETWORKS empty), a real wallet peer, and a loopback "inside" server standing
 * for the agent's own network: it must never be called. URLs with credentials or another scheme
 * are a 400 naming the field.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logging/index.ts'
import { WalletPeer } from '../../src/wallet-peer/WalletPeer.ts'
import { startEventReceiver, type EventReceiver } from '../support/event-receiver.ts'
import { connectWallet, startTestAgentNode, type TestAgentNode } from '../support/agent-node.ts'

describe('outbound guard on every fetch made for an API caller', () => {
  let inside: Server
  const insideRequests: string[] = []
  let insideUrl = ''
  let receiver: EventReceiver
  let agent: TestAgentNode
  let wallet: WalletPeer
  let connectionId = ''

  beforeAll(async () => {
    inside = createServer((request, response) => {
      insideRequests.push(request.url ?? '')
      response.end('{}')
    })
    await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve))
    insideUrl = `http://127.0.0.1:${(inside.address() as AddressInfo).port}`
    receiver = await startEventReceiver()
    agent = await startTestAgentNode({ OUTBOUND_ALLOWED_NETWORKS: '', EVENTS_BASE_URL: receiver.url })
    wallet = await WalletPeer.create({ label: 'holder', logger: createLogger('silent', 'wallet') })
    connectionId = (await connectWallet(agent.node, agent.adminUrl, wallet)).connectionId
  }, 60_000)
  afterAll(async () => {
    await wallet?.stop()
    await agent?.close()
    await receiver?.close()
    await new Promise((resolve) => inside?.close(resolve))
  })

  it('does not fetch an invitation url inside the network: the message is errored', async () => {
    const response = await agent.postMessage({ connectionId, type: 'invitation', url: `${insideUrl}/invitation` })
    expect(response.status).toBe(200)
    const { id } = (await response.json()) as { id: string }
    const errored = await receiver.waitFor(
      (event) => event.topic === 'message-state-updated' && event.body.messageId === id && event.body.state === 'errored',
    )
    expect(errored.body.state).toBe('errored')
    expect(insideRequests).toEqual([])
  })

  it('does not resolve a did:web credential definition inside the network', async () => {
    const host = encodeURIComponent(new URL(insideUrl).host)
    const ids = [
      `did:web:${host}?service=anoncreds&relativeRef=/credDef/abc`,
      // %2F in the DID path would have reached any path of the inside server
      `did:web:${host}:v1%2Fadmin%2Fsecrets%23?service=anoncreds&relativeRef=/credDef/abc`,
    ]
    for (const credentialDefinitionId of ids) {
      const response = await agent.admin('/v1/credential-offer', {
        body: { credentialDefinitionId, claims: [{ name: 'name', value: 'Alice' }] },
      })
      expect(response.status, credentialDefinitionId).toBeGreaterThanOrEqual(400)
      expect(response.status, credentialDefinitionId).toBeLessThan(500)
    }
    expect(insideRequests).toEqual([])
  })

  it.each([
    ['a file: URL', 'file:///etc/passwd', /http\(s\)/],
    ['a user:password@ URL', 'https://alice:s3cret@example.com/invitation', /user name or password/],
  ])('answers 400 naming url for %s in an invitation message', async (_name, url, message) => {
    const response = await agent.postMessage({ connectionId, type: 'invitation', url })
    expect(response.status).toBe(400)
    const body = (await response.json()) as { issues: Array<{ field: string; message: string }> }
    expect(body.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'url', message: expect.stringMatching(message) })]),
    )
  })

  it('answers 400 naming url for an event subscription or a presentation callback with credentials', async () => {
    const subscription = await agent.admin('/v1/event-subscriptions', { body: { url: 'https://bob:pw@example.com/events' } })
    expect(subscription.status).toBe(400)
    expect(JSON.stringify(await subscription.json())).toMatch(/"field":"url".*user name or password/)
    const presentation = await agent.admin('/v1/presentation-request', {
      body: { callbackUrl: 'https://bob:pw@example.com/cb', requestedCredentials: [{ credentialDefinitionId: 'x', attributes: ['name'] }] },
    })
    expect(presentation.status).toBe(400)
    expect(JSON.stringify(await presentation.json())).toMatch(/"field":"callbackUrl".*user name or password/)
  })
})
