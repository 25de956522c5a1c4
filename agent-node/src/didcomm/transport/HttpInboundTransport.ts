/**
 * DIDComm v1 inbound over HTTP (Aries RFC 0025), served by the public hono app rather than by
 * a server of its own, so HTTP, WebSocket and the invitation pages share port 3001.
 *
 * `POST /` with `Content-Type: application/didcomm-envelope-enc` (or the legacy
 * `application/ssi-agent-wire`) and a JWE body:
 * - 200 with the reply envelope when the message asked for return routing and the agent answered
 *   (with return routing `all`, the reply may be any message for the connection: it is sent even
 *   when the request's own message then failed, rather than lost),
 * - 202 with no body when it was accepted and nothing came back on this request,
 * - 400 with a JSON error for a body that is not a DIDComm envelope or cannot be unpacked,
 * - 413 for a body larger than the envelope limit (`envelope.ts`; the public app refuses it while
 *   it streams in, before it is read whole),
 * - 415 for any other content type,
 * - 503 with `Retry-After` while the inbox backlog is full (`didcomm/inbox/`).
 * The envelope is stored in the inbox before it is processed (at once, in the request), and
 * answered once processed.
 * An envelope refused by the limits or that cannot be unpacked or processed is also reported on the agent's event bus as
 * `InboundMessageRejectedEvent` (metrics count it).
 */
import { randomUUID } from 'node:crypto'
import { EventEmitter, type AgentContext, type BaseEvent } from '@credo-ts/core'
import {
  DidCommMimeType,
  DidCommTransportService,
  type DidCommEncryptedMessage,
  type DidCommInboundTransport,
  type DidCommTransportSession,
} from '@credo-ts/didcomm'
import type { Context } from 'hono'
import type { RateLimitedLogger } from '../../logging/rate-limited.ts'
import type { InboundInbox } from '../inbox/InboundInbox.ts'
import { checkInboundEnvelope, type EnvelopeLimits } from './envelope.ts'

const CONTENT_TYPES: string[] = [DidCommMimeType.V1, DidCommMimeType.V0]

/** Type of the event emitted when an inbound envelope is rejected. */
export const INBOUND_MESSAGE_REJECTED = 'ParleyInboundMessageRejected'

/** An inbound DIDComm envelope could not be unpacked or processed (`transport` it came on, the error's message). */
export interface InboundMessageRejectedEvent extends BaseEvent {
  type: typeof INBOUND_MESSAGE_REJECTED
  payload: { transport: 'http'; error: string }
}

export class HttpInboundTransport implements DidCommInboundTransport {
  private agentContext?: AgentContext

  /**
   * @param inbox where envelopes are stored before they are processed
   * @param log rate-limited log for envelopes peers get refused
   */
  constructor(
    private readonly inbox: InboundInbox,
    private readonly limits: EnvelopeLimits,
    private readonly log: RateLimitedLogger,
  ) {}

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
    const check = checkInboundEnvelope(Buffer.from(await c.req.arrayBuffer()), this.limits)
    if (!check.ok) {
      this.log.log('warn', `http-refused:${check.status}`, { reason: check.reason }, 'refused inbound DIDComm message')
      this.reportRejected(agentContext, check.reason)
      return c.json({ error: check.reason }, check.status)
    }

    const transportService = agentContext.dependencyManager.resolve(DidCommTransportService)
    const session = new HttpTransportSession(contentType)
    let failure: Error | undefined
    try {
      failure = await this.inbox.processNow(check.envelope, session)
    } finally {
      transportService.removeSession(session)
      session.closed = true
    }
    if (failure) {
      this.log.log('warn', 'http-unprocessed', { err: failure }, 'rejected inbound DIDComm message')
      this.reportRejected(agentContext, failure.message)
      // A message the agent already sent on this session (another message for the connection can
      // take the one reply an HTTP request has, and the request's own reply then fails) is
      // delivered, not dropped with the error: the agent counts it as sent.
      if (!session.reply) return c.json({ error: `message could not be processed: ${failure.message}` }, 400)
    }
    if (!session.reply) return c.body(null, 202)
    return c.body(JSON.stringify(session.reply), 200, { 'content-type': session.contentType })
  }

  /** Reports an envelope refused by the limits or that could not be unpacked on the agent's event bus. */
  private reportRejected(agentContext: AgentContext, error: string): void {
    agentContext.dependencyManager.resolve(EventEmitter).emit<InboundMessageRejectedEvent>(agentContext, {
      type: INBOUND_MESSAGE_REJECTED,
      payload: { transport: 'http', error },
    })
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
