/**
 * The one reply of a DIDComm request over HTTP is never dropped (`HttpInboundTransport`): with
 * return routing `all`, any message for the connection may take the request's session (here, as
 * in the failure seen at a restart, a text re-sent while the wallet's status request was being
 * processed); when the request's own processing then fails, the text still goes back in the
 * answer, since the agent counted it as sent. Unit test: the inbox and the agent context are
 * stand-ins; the transport and its Hono handler are real.
 */
import type { AgentContext } from '@credo-ts/core'
import { DidCommMimeType, type DidCommEncryptedMessage, type DidCommTransportSession } from '@credo-ts/didcomm'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { InboundInbox } from '../../src/didcomm/inbox/InboundInbox.ts'
import { DEFAULT_ENVELOPE_LIMITS } from '../../src/didcomm/transport/envelope.ts'
import { HttpInboundTransport } from '../../src/didcomm/transport/HttpInboundTransport.ts'
import { createLogger } from '../../src/logging/index.ts'
import { RateLimitedLogger } from '../../src/logging/rate-limited.ts'

const protectedHeader = Buffer.from(
  JSON.stringify({
    enc: 'xchacha20poly1305_ietf',
    typ: 'JWM/1.0',
    alg: 'Authcrypt',
    recipients: [{ encrypted_key: 'a2V5', header: { kid: '9NEcbqogeAz6e2q3qthWEKaUE9beyq399X3UgYtCGGXi', iv: 'aXY', sender: 'c2VuZGVy' } }],
  }),
).toString('base64url')
const request: DidCommEncryptedMessage = { protected: protectedHeader, iv: 'aXY', ciphertext: 'Y2lwaGVy', tag: 'dGFn' }
const text: DidCommEncryptedMessage = { protected: protectedHeader, iv: 'dGV4dA', ciphertext: 'dGV4dA', tag: 'dGV4dA' }

const agentContext = {
  dependencyManager: { resolve: () => ({ removeSession: () => undefined, emit: () => undefined }) },
} as unknown as AgentContext

async function post(processNow: (session: DidCommTransportSession) => Promise<Error | undefined>) {
  const inbox = { full: false, processNow: (_envelope: DidCommEncryptedMessage, session: DidCommTransportSession) => processNow(session) }
  const transport = new HttpInboundTransport(
    inbox as unknown as InboundInbox,
    DEFAULT_ENVELOPE_LIMITS,
    new RateLimitedLogger(createLogger('silent')),
  )
  await transport.start(agentContext)
  const app = new Hono()
  app.post('/', (c) => transport.handle(c))
  return app.request('/', { method: 'POST', headers: { 'content-type': DidCommMimeType.V1 }, body: JSON.stringify(request) })
}

describe('DIDComm over HTTP: the reply of a request', () => {
  it('answers the message that took the session even when the request itself then failed', async () => {
    const response = await post(async (session) => {
      await session.send(agentContext, text) // another message for the connection takes the reply
      await expect(session.send(agentContext, request)).rejects.toThrow(/closed/) // the request's own reply
      return new Error('status could not be delivered')
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(text)
  })

  it('answers 400 for a failed request with nothing to send back, 202 for a processed one', async () => {
    expect((await post(async () => new Error('could not be unpacked'))).status).toBe(400)
    expect((await post(async () => undefined)).status).toBe(202)
  })
})
