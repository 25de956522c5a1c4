/**
 * DIDComm v1 inbound over HTTP (Aries RFC 0025), served by the public hono app rather than by
 * a server of its own, so HTTP, WebSocket and the invitation pages share port 3001.
 *
 * `POST /` with `Content-Type: application/didcomm-envelope-enc` (or the legacy
 * `application/ssi-agent-wire`) and a JWE body:
 * - 200 with the reply envelope when the message asked for return routing and the agent answered,
 * - 202 with no body when it was accepted and nothing came back on this request,
 * - 400 with a JSON error for a body that is not a DIDComm envelope or cannot be unpacked,
 * - 415 for any other content type,
 * - 503 with `Retry-After` while the inbox backlog is full (`didcomm/inbox/`).
 * The envelope is stored in the inbox before it is processed (at once, in the request), and
 * answered once processed.
 */
import { randomUUID } from 'node:crypto'
import type { AgentContext } from '@credo-ts/core'
import {
  DidCommMimeType,
  DidCommTransportService,
  isValidJweStructure,
  type DidCommEncryptedMessage,
  type DidCommInboundTransport,
  type DidCommTransportSession,
} from '@credo-ts/didcomm'
import type { Context } from 'hono'
import type { InboundInbox } from '../inbox/InboundInbox.ts'

const CONTENT_TYPES: string[] = [DidCommMimeType.V1, DidCommMimeType.V0]

/** Largest envelope accepted, in bytes (media travels by reference, not inline). */
export const MAX_ENVELOPE_BYTES = 5 * 1024 * 1024

export class HttpInboundTransport implements DidCommInboundTransport {
  private agentContext?: AgentContext

  constructor(private readonly inbox: InboundInbox) {}

  async start(agentContext: AgentContext): Promise<void> {
    this.agentContext = agentContext
  }

  async stop(): Promise<void> {
    this.agentContext = undefined
  }

  /** Handles one inbound envelope; see the module comment for the responses. */
  async handle(c: Context): Promise<Response> {
    const agentContext = this.agentContext
    if (!agentContext) return c.json({ error: 'agent is not ready' }, 503)
    if (this.inbox.full) return c.json({ error: 'too many messages waiting; retry shortly' }, 503, { 'retry-after': '1' })
    const contentType = c.req.header('content-type')?.split(';')[0]?.trim()
    if (!contentType || !CONTENT_TYPES.includes(contentType)) {
      return c.json({ error: `unsupported content-type; use ${CONTENT_TYPES.join(' or ')}` }, 415)
    }
    const text = await c.req.text()
    if (text.length > MAX_ENVELOPE_BYTES) return c.json({ error: 'envelope too large' }, 413)
    let envelope: unknown
    try {
      envelope = JSON.parse(text)
    } catch {
      return c.json({ error: 'body is not JSON' }, 400)
    }
    if (!isValidJweStructure(envelope)) return c.json({ error: 'body is not a DIDComm encrypted envelope (JWE)' }, 400)

    const transportService = agentContext.dependencyManager.resolve(DidCommTransportService)
    const session = new HttpTransportSession(contentType)
    let failure: Error | undefined
    try {
      failure = await this.inbox.processNow(envelope as DidCommEncryptedMessage, session)
    } finally {
      transportService.removeSession(session)
    }
    if (failure) return c.json({ error: `message could not be processed: ${failure.message}` }, 400)
    session.closed = true
    if (!session.reply) return c.body(null, 202)
    return c.body(JSON.stringify(session.reply), 200, { 'content-type': session.contentType })
  }
}

/** A return-route session bound to one HTTP request: at most one reply, sent as the response. */
class HttpTransportSession implements DidCommTransportSession {
  readonly id = randomUUID()
  readonly type = 'http'
  reply?: DidCommEncryptedMessage
  closed = false

  constructor(readonly contentType: string) {}

  async send(_agentContext: AgentContext, encryptedMessage: DidCommEncryptedMessage): Promise<void> {
    if (this.closed || this.reply) throw new Error('http transport session has been closed')
    this.reply = encryptedMessage
  }

  async close(): Promise<void> {
    this.closed = true
  }
}
